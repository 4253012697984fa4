"""The library-examples corpus: the programs library_examples.json lists, each checked to be in the staged folder
and built as the listing says (the example's own CMake target, or an nvcc line) for this machine's GPU only."""
import os
import re
import shutil
import subprocess

from corpus_documents import BadInput, load_library_examples


def library_example_programs(checkout, listing_path):
    """The listed programs, each checked to be in the staged folder: a missing file is bad input, named."""
    programs = load_library_examples(listing_path)
    for name, program in programs.items():
        for path in [program["folder"]] + program["files"]:
            if not os.path.exists(os.path.join(checkout, path)):
                raise BadInput(f"--corpus library-examples={checkout!r}: program {name!r} needs {path!r}, which "
                               f"is not there (--library-examples {listing_path!r} lists it)")
        if not os.path.isdir(os.path.join(checkout, program["folder"])):
            raise BadInput(f"--corpus library-examples={checkout!r}: program {name!r}: its folder "
                           f"{program['folder']!r} is a file; expected the folder it builds in (--library-examples "
                           f"{listing_path!r} lists it)")
    return programs


def cuda_compiler():
    """The toolkit's nvcc, found as CMake finds it: CUDACXX, then PATH, then the toolkit's default place. A CUDACXX
    that is set is the compiler, or bad input: set but empty or not a program, another nvcc would build unsaid."""
    if "CUDACXX" in os.environ:
        given = os.environ["CUDACXX"]
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise BadInput(f"CUDACXX={given!r}: expected the CUDA compiler, a runnable file (or CUDACXX unset: nvcc "
                           "is then found on PATH)")
        return given
    for candidate in (shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def first_error(log):
    """The line to read first: the compiler's (or CMake's) first error, else the log's last line."""
    lines = [l.strip() for l in log.splitlines() if l.strip()]
    line = next((l for l in lines if re.search(r"\berror\b", l, re.IGNORECASE)), lines[-1] if lines else "")
    return line[:160]


def build_library_example(name, program, checkout, build_root, arch, nvcc):
    """Builds one example for this GPU's architecture only. Returns (executable, None) or (None, why not)."""
    if nvcc is None:
        return None, "no CUDA compiler: neither CUDACXX nor nvcc on PATH"
    folder = os.path.join(checkout, program["folder"])
    out = os.path.join(build_root, name)
    os.makedirs(out, exist_ok=True)
    build = program["build"]
    if "cmake_target" in build:
        target = build["cmake_target"]
        # CMAKE_CUDA_ARCHITECTURES is the examples' own knob; the few whose CMake turns architectures off for
        # their targets have no device code of their own, so nvcc's default changes nothing there.
        steps = [("not configured", ["cmake", "-S", folder, "-B", out, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                                     f"-DCMAKE_CUDA_ARCHITECTURES={arch}", f"-DCMAKE_CUDA_COMPILER={nvcc}"]),
                 ("did not build", ["cmake", "--build", out, "--target", target])]
    else:
        target = name
        steps = [("did not build", [nvcc, f"-arch=sm_{arch}", "-o", os.path.join(out, name)] + build["nvcc"])]
    log = ""
    for failure, command in steps:
        try:
            done = subprocess.run(command, cwd=folder, capture_output=True, text=True, errors="replace")
        except OSError as err:  # cmake or ninja missing
            return None, f"{failure}: {command[0]}: {err.strerror}"
        log += "$ " + " ".join(command) + "\n" + done.stdout + done.stderr
        # The logs have a folder of their own, beside the builds' (library-examples-logs): among the build
        # folders, example a's log a.log would be the build folder of an example named a.log.
        logs = os.path.join(os.path.dirname(build_root), "library-examples-logs")
        os.makedirs(logs, exist_ok=True)
        with open(os.path.join(logs, name + ".log"), "w") as f:
            f.write(log)
        if done.returncode != 0:
            return None, f"{failure}: {first_error(done.stdout + done.stderr)}"
    for root, dirs, files in os.walk(out):
        dirs[:] = [d for d in dirs if d != "CMakeFiles"]
        if target in files and os.access(os.path.join(root, target), os.X_OK):
            return os.path.join(root, target), None
    return None, f"built, but no executable {target!r} under {out}"
