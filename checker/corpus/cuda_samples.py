"""The cuda-samples corpus: every sample of a checkout, built with the toolkit on this machine for this machine's GPU
only, and run as the samples' own runner runs it (from its folder in the build, with the arguments of their
test_args.json)."""
import json
import os
import re
import subprocess

from corpus_documents import BadInput


# Built for this machine's GPU only: every sample sets its own list of nine architectures, which would build
# nine times the device code. The samples' sources are not touched: their targets are given one architecture.
FORCE_ARCH = """get_property(_done GLOBAL PROPERTY HAZARDLAB_CORPUS_ARCH)
if(NOT _done)
  set_property(GLOBAL PROPERTY HAZARDLAB_CORPUS_ARCH TRUE)
  foreach(_command add_executable add_library)
    cmake_language(EVAL CODE "
      function(${_command} name)
        _${_command}(\\${name} \\${ARGN})
        if(NOT \\"\\${ARGV1}\\" MATCHES \\"^(IMPORTED|ALIAS|INTERFACE)$\\")
          set_property(TARGET \\${name} PROPERTY CUDA_ARCHITECTURES \\${HAZARDLAB_CORPUS_ARCH})
        endif()
      endfunction()")
  endforeach()
endif()
"""


def sample_folders(checkout):
    """Every sample: a folder two levels under Samples/ whose CMakeLists.txt adds an executable of its name."""
    samples = {}
    root = os.path.join(checkout, "Samples")
    if not os.path.isdir(root):
        raise BadInput(f"--corpus cuda-samples={checkout!r}: no Samples folder (is it a checkout of cuda-samples?)")
    for category in sorted(os.listdir(root)):
        for name in sorted(os.listdir(os.path.join(root, category)) if os.path.isdir(os.path.join(root, category)) else []):
            folder = os.path.join(root, category, name)
            lists = os.path.join(folder, "CMakeLists.txt")
            if os.path.isfile(lists):
                with open(lists, errors="replace") as f:
                    text = f.read()
                # The target may be named otherwise than its folder (7_libNVVM/device-side-launch builds dsl).
                for target in re.findall(r"add_executable\(\s*([A-Za-z0-9_.+-]+)[\s)]", text):
                    samples[target] = (category, folder)
    if not samples:
        raise BadInput(f"--corpus cuda-samples={checkout!r}: no sample found under Samples/")
    return samples


def build_cuda_samples(checkout, work, jobs, arch):
    build = os.path.join(work, "cuda-samples-build")
    force = os.path.join(work, "force-architecture.cmake")
    with open(force, "w") as f:
        f.write(FORCE_ARCH)
    configure = subprocess.run(
        ["cmake", "-S", checkout, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
         f"-DCMAKE_PROJECT_INCLUDE_BEFORE={force}", f"-DHAZARDLAB_CORPUS_ARCH={arch}"],
        capture_output=True, text=True)
    with open(os.path.join(work, "cuda-samples-configure.log"), "w") as f:
        f.write(configure.stdout + configure.stderr)
    if configure.returncode != 0:
        raise BadInput(f"--corpus cuda-samples={checkout!r}: CMake could not configure it (see "
                       f"{os.path.join(work, 'cuda-samples-configure.log')})")
    built = subprocess.run(["cmake", "--build", build, "-j", str(max(jobs, 2) * 4), "--", "-k", "0"],
                           capture_output=True, text=True)
    with open(os.path.join(work, "cuda-samples-build.log"), "w") as f:
        f.write(built.stdout + built.stderr)
    return build, configure.stdout + configure.stderr, built.stdout + built.stderr


def executable_of(build, category, name, folder):
    path = os.path.join(build, "Samples", category, os.path.basename(folder), name)
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def why_not_built(name, configure_log, build_log):
    for line in build_log.splitlines():
        if f"/{name}/" in line and ("error" in line.lower()):
            return "did not build: " + line.strip()[:160]
    for line in configure_log.splitlines():
        if name in line and re.search(r"not found|skipping|Skipping|requires|Could NOT", line):
            return "not configured: " + line.strip()[:160]
    return "not configured by the samples' CMake on this machine (a library or platform it needs is missing)"


def samples_own_arguments(checkout):
    """The samples' own run configuration (test_args.json beside their run_tests.py): each sample's arguments,
    or that it is skipped (it needs a display, a file it does not ship, another platform). Read and checked with
    the corpus, before anything is made: a file that is not JSON, or arguments that are not a list of strings (a
    string would be run character by character), is bad input naming the sample."""
    path = os.path.join(checkout, "test_args.json")
    if not os.path.isfile(path):
        return {}
    at = f"--corpus cuda-samples={checkout!r}: {path!r}"
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except OSError as err:
        raise BadInput(f"{at}: cannot be read ({err.strerror})") from None
    except (ValueError, RecursionError) as err:  # not UTF-8, not JSON, a number past int()'s digits, too deep
        raise BadInput(f"{at}: not JSON this harness reads ({str(err)[:120]})") from None
    if not isinstance(config, dict):
        raise BadInput(f"{at}: expected an object (sample -> its arguments), found {type(config).__name__}")
    out = {}
    for name, c in config.items():
        where = f"{at}: sample {name!r}"
        if not isinstance(c, dict):
            raise BadInput(f"{where}: expected an object ('args', 'runs' or 'skip'), found {c!r:.60}")
        if c.get("skip"):
            out[name] = {"skip": True}
        elif "args" in c:
            out[name] = {"args": _arguments(c["args"], f"{where}: 'args'")}
        elif c.get("runs"):
            runs = c["runs"]
            if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
                raise BadInput(f"{where}: 'runs': expected a list of objects, found {runs!r:.60}")
            first = next((r for r in runs if not r.get("skip")), None)
            out[name] = {"args": _arguments(first.get("args", []), f"{where}: 'runs'")} if first else {"skip": True}
    return out


def _arguments(value, where):
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise BadInput(f"{where}: expected a list of strings, found {value!r:.60}")
    return list(value)


def samples_environment():
    """Open MPI refuses to start as root unless told it may; simpleMPI starts it in its own process (MPI_Init,
    no mpirun), and is compared only if it runs. Nothing else reads these two."""
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env
