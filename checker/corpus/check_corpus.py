#!/usr/bin/env python3
"""Differential runs of real programs, without and then under `hazardlab check`.

  check_corpus.py --hazardlab PATH --corpus KIND=CHECKOUT [--corpus ...] --work DIR
                  [--expectations FILE] [--library-examples FILE] [--jobs N] [--only REGEX] [--timeout SECONDS]
                  [--json FILE]

KIND is one of:
  cuda-samples   a checkout of NVIDIA's cuda-samples: every sample is built with the toolkit on this machine (for
                 this machine's GPU only), then each one that built is run as the samples' own runner runs it:
                 from its folder in the build, with the arguments of their test_args.json.
  pytest         a folder of pytest files (PyTorch's test/test_cuda.py, CuPy's tests/cupy_tests/cuda_tests):
                 each file is one program, run as `python3 -m pytest FILE -k SELECTION`.
  library-examples
                 a folder of NVIDIA's CUDA library examples, staged unmodified under each repository's name: the
                 programs that library_examples.json lists, each built as it says (the example's own CMake target,
                 or an nvcc line in its folder) for this machine's GPU only, run with the arguments it gives.

For each program it compares the exit status, the standard output (each line that matches a mask pattern is
masked: times, rates and addresses change from run to run) and, under the checker, the verdict and the findings.
A finding must be listed in the expectations file, which says why it is true. One row per program, then a
summary. Exit status: 0 when every program behaved the same and was clean or found only what is expected; 1 on
any difference, crash or unexpected finding, or a listed library example that did not build; 2 on bad input; 77
where there is no GPU.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

KINDS = ("cuda-samples", "pytest", "library-examples")
# Lines that print a measurement, a time or an address: masked in every program's output.
DEFAULT_MASKS = [
    r"\d+(\.\d+)?\s*\(?(ns|us|usec|ms|msec|s|sec|seconds|secs|GB/s|MB/s|GiB/s|KB/s|GFlop/s|Gflop/s|GFLOP/s|GFlops|"
    r"Gflops|GOPS|Mop/s|MOPS|fps|Mpixels/sec|Mkeys/s|MElements/s|Mpts/s|Gbits/s|%)\)?(\b|$)",
    r"\b(Time|time|Throughput|throughput|Elapsed|elapsed|Bandwidth|bandwidth|Performance|GPU time|CPU time)\b",
    r"(per sec|/sec\b|/s\b|[ GT]FLOPS|\bTOPS\b|Mtexlookups|Mpix/s|images per sec)",
    r"0x[0-9a-fA-F]{6,}",
    r"shm\d+\b",  # shared-memory names made of the process id
]
# Beside the samples that cannot run on any machine of this kind, each named with its reason.
SELECT_PYTEST = "non_blocking or pin or copy or stream or event or record_stream or host or graph"


class BadInput(Exception):
    pass


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hazardlab", required=True, help="the hazardlab program")
    p.add_argument("--corpus", action="append", default=[], metavar="KIND=CHECKOUT",
                   help="a corpus to run; KIND=\"\" (nothing after the =) is a corpus not given here: skipped")
    p.add_argument("--work", required=True, help="a folder for builds and runs (created; nothing else is touched)")
    p.add_argument("--expectations", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                          "expectations.json"))
    p.add_argument("--library-examples", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                               "library_examples.json"),
                   help="the library-examples corpus: each program's files, build and arguments")
    p.add_argument("--jobs", type=int, default=4)
    p.add_argument("--only", default="", help="run only the programs whose name matches this regular expression")
    p.add_argument("--timeout", type=int, default=120, help="seconds a program may run, each way")
    p.add_argument("--json", help="write every row as JSON here")
    args = p.parse_args(argv)
    corpora = []
    if not args.corpus:
        raise BadInput("no --corpus given: expected KIND=CHECKOUT with KIND one of " + ", ".join(KINDS))
    for spec in args.corpus:
        kind, sep, path = spec.partition("=")
        if not sep or kind not in KINDS:
            raise BadInput(f"--corpus {spec!r}: expected KIND=CHECKOUT with KIND one of {', '.join(KINDS)}")
        if path == "":
            continue  # not given on this machine (ctest's corpus tests pass what CMake was told)
        if not os.path.isdir(path):
            raise BadInput(f"--corpus {spec!r}: the folder {path!r} does not exist")
        corpora.append((kind, os.path.abspath(path)))
    if args.jobs < 1 or args.jobs > 64:
        raise BadInput(f"--jobs {args.jobs}: expected 1 to 64")
    if args.timeout < 1 or args.timeout > 3600:
        raise BadInput(f"--timeout {args.timeout}: expected 1 to 3600 seconds")
    try:
        args.only_re = re.compile(args.only)
    except re.error as e:
        raise BadInput(f"--only {args.only!r}: not a regular expression ({e})")
    if not os.access(args.hazardlab, os.X_OK):
        raise BadInput(f"--hazardlab {args.hazardlab!r}: not an executable file")
    args.hazardlab = os.path.abspath(args.hazardlab)
    args.work = os.path.abspath(args.work)
    return args, corpora


def load_document(option, path, schema):
    """A JSON file the harness is given (`option` names it in every error), with the schema it must declare."""
    try:
        with open(path) as f:
            document = json.load(f)
    except OSError as err:
        raise BadInput(f"{option} {path!r}: cannot be read ({err.strerror})")
    except json.JSONDecodeError as err:
        raise BadInput(f"{option} {path!r}: not JSON ({err})")
    if not isinstance(document, dict) or document.get("schema") != schema:
        found = document.get("schema") if isinstance(document, dict) else None
        raise BadInput(f"{option} {path!r}: schema is {found!r}, expected {schema!r}")
    return document


def load_expectations(path):
    e = load_document("--expectations", path, "hazardlab.corpus-expectations")
    for kind, corpus in e.get("corpora", {}).items():
        if kind not in KINDS:
            raise BadInput(f"--expectations {path!r}: corpus {kind!r} is not one of {', '.join(KINDS)}")
        for name, program in corpus.get("programs", {}).items():
            for finding in program.get("findings", []):
                for key in ("hazard", "why", "lines"):
                    if not finding.get(key):
                        raise BadInput(f"--expectations {path!r}: {kind} program {name!r}: a finding without {key!r}")
                needs = finding.get("needs_gpus", 1)
                if not isinstance(needs, int) or isinstance(needs, bool) or not 1 <= needs <= 64:
                    raise BadInput(f"--expectations {path!r}: {kind} program {name!r}: needs_gpus {needs!r}: "
                                   "expected a whole number of GPUs from 1 to 64")
            if "exclude" in program and not str(program["exclude"]).strip():
                raise BadInput(f"--expectations {path!r}: {kind} program {name!r}: an exclusion without its reason")
            if program.get("mask") and not program.get("why_masked"):
                raise BadInput(f"--expectations {path!r}: {kind} program {name!r}: a mask without 'why_masked'")
            if program.get("unordered") and not program.get("why_unordered"):
                raise BadInput(f"--expectations {path!r}: {kind} program {name!r}: 'unordered' without 'why_unordered'")
            verdict = program.get("verdict")
            if verdict is not None and (verdict.get("is") not in ("not-checked", "found") or not verdict.get("why")):
                raise BadInput(f"--expectations {path!r}: {kind} program {name!r}: a verdict needs 'is' "
                               "(not-checked or found) and 'why'")
    return e


def gpus_usable(hazardlab):
    """How many GPUs the checker's own `hazardlab devices` lists here (0 where it cannot say)."""
    out = subprocess.run([hazardlab, "devices", "--json"], capture_output=True, text=True)
    try:
        return len(json.loads(out.stdout).get("devices", [])) if out.returncode == 0 else 0
    except json.JSONDecodeError:
        return 0


# ---- cuda-samples -------------------------------------------------------------------------------------------

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


def compute_capability(hazardlab):
    out = subprocess.run([hazardlab, "devices", "--json"], capture_output=True, text=True)
    try:
        device = json.loads(out.stdout)["devices"][0]
        return str(device.get("compute_capability", "90")).replace(".", "")
    except (json.JSONDecodeError, KeyError, IndexError):
        return "90"


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
    or that it is skipped (it needs a display, a file it does not ship, another platform)."""
    path = os.path.join(checkout, "test_args.json")
    if not os.path.isfile(path):
        return {}
    with open(path) as f:
        config = json.load(f)
    out = {}
    for name, c in config.items():
        if c.get("skip"):
            out[name] = {"skip": True}
        elif "args" in c:
            out[name] = {"args": list(c["args"])}
        elif c.get("runs"):
            first = next((r for r in c["runs"] if not r.get("skip")), None)
            out[name] = {"args": list(first.get("args", []))} if first else {"skip": True}
    return out


# ---- library-examples ---------------------------------------------------------------------------------------

# The staged folder holds only the examples' files, with no runner of its own (the samples have their CMake and
# test_args.json): which programs, how each builds and with which arguments is this list, beside the harness.
def load_library_examples(path):
    """The programs of the library-examples corpus: name -> {folder, files, build, args, streams}."""
    listing = load_document("--library-examples", path, "hazardlab.library-examples")
    programs = listing.get("programs")
    if not isinstance(programs, dict) or not programs:
        raise BadInput(f"--library-examples {path!r}: no program listed")
    for name, program in programs.items():
        def refuse(why):
            raise BadInput(f"--library-examples {path!r}: program {name!r}: {why}")
        if not isinstance(program.get("folder"), str) or not program["folder"]:
            refuse("no 'folder'")
        files = program.get("files")
        if not isinstance(files, list) or not files or not all(isinstance(f, str) and f for f in files):
            refuse("no 'files' (the paths it needs under the staged folder)")
        if any(os.path.isabs(f) or ".." in f.split("/") for f in files + [program["folder"]]):
            refuse("a path outside the staged folder (absolute, or with '..')")
        build = program.get("build", {})
        if ("cmake_target" in build) == ("nvcc" in build):
            refuse("'build' needs exactly one of 'cmake_target' (the example's own CMake) and 'nvcc' (a line)")
        if "nvcc" in build and (not isinstance(build["nvcc"], list) or not str(build.get("as", "")).strip()):
            refuse("an nvcc build needs its arguments as a list and 'as' (where the line comes from and why)")
        if not isinstance(program.get("args", []), list):
            refuse("'args' is not a list")
        if not str(program.get("streams", "")).strip():
            refuse("no 'streams' (the streams and asynchronous work that make it worth running)")
    return programs


def library_example_programs(checkout, listing_path):
    """The listed programs, each checked to be in the staged folder: a missing file is bad input, named."""
    programs = load_library_examples(listing_path)
    for name, program in programs.items():
        for path in [program["folder"]] + program["files"]:
            if not os.path.exists(os.path.join(checkout, path)):
                raise BadInput(f"--corpus library-examples={checkout!r}: program {name!r} needs {path!r}, which "
                               f"is not there (--library-examples {listing_path!r} lists it)")
    return programs


def cuda_compiler():
    """The toolkit's nvcc, found as CMake finds it: CUDACXX, then PATH, then the toolkit's default place."""
    for candidate in (os.environ.get("CUDACXX"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
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
        with open(os.path.join(build_root, name + ".log"), "w") as f:
            f.write(log)
        if done.returncode != 0:
            return None, f"{failure}: {first_error(done.stdout + done.stderr)}"
    for root, dirs, files in os.walk(out):
        dirs[:] = [d for d in dirs if d != "CMakeFiles"]
        if target in files and os.access(os.path.join(root, target), os.X_OK):
            return os.path.join(root, target), None
    return None, f"built, but no executable {target!r} under {out}"


# ---- running and comparing ----------------------------------------------------------------------------------

# pytest's summary line ends with the session's duration: only that part is masked, the counts are compared.
PYTEST_DURATION = re.compile(r" in [0-9.]+s( \([0-9:]+\))?")


def masked(text, masks, replaced=()):
    """The lines compared: each line that matches a mask is left out (a varying number of them, a log the driver
    words differently, must not shift the rest); within the others, what a `replaced` pattern matches is masked."""
    out = []
    for line in text.splitlines():
        if any(m.search(line) for m in masks):
            continue
        for r in replaced:
            line = r.sub("<masked>", line)
        out.append(line)
    return out


def run(command, cwd, timeout, env=None):
    try:
        p = subprocess.run(command, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=timeout,
                           env=env, stdin=subprocess.DEVNULL)
        return {"status": p.returncode, "stdout": p.stdout, "stderr": p.stderr, "timed_out": False}
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return {"status": None, "stdout": out, "stderr": "", "timed_out": True}


def compare(name, command, cwd, masks, expected, args, env=None):
    timeout = expected.get("timeout", args.timeout)
    plain = run(command, cwd, timeout, env)
    # A second run without the checker: a line that differs between the two (a time not caught by the masks,
    # a device printf's order, a sum of floating-point atomics) says nothing about the checker and is masked.
    again = run(command, cwd, timeout, env)
    report_path = os.path.join(cwd, "hazardlab-check.json")
    # The checker's own exit statuses are set apart from the program's, so that its status is compared as is.
    checked = run([args.hazardlab, "check", "--error-exitcode", "251", "--unchecked-exitcode", "252",
                   "--json", report_path, "--"] + command, cwd, timeout * 3, env)
    report = None
    if os.path.exists(report_path):
        with open(report_path) as f:
            report = json.load(f)
    row = {"program": name, "plain_status": plain["status"], "checked_status": checked["status"],
           "verdict": report["verdict"] if report else "no report", "findings": [], "differences": [],
           # Which page protection watched its processes (protection keys, or mprotect where keys are missing).
           "protection": sorted({p["protection"]["backend"] for p in report["processes"] if p.get("protection")})
           if report else []}
    if plain["timed_out"]:
        row["differences"].append(f"timed out without the checker after {timeout} s")
    if checked["timed_out"]:
        row["differences"].append(f"timed out under the checker after {timeout * 3} s")
    if report:
        for p in report["processes"]:
            for f in p["findings"]:
                # The program's own line: the driver's, CUPTI's and the checker's frames are not the program's.
                access = next((fr.get("location", "") for fr in f.get("access_stack", []) if fr.get("location")
                               and not re.match(r"lib(cuda|cupti|hazardlab-check-)", os.path.basename(fr.get("module", "")))), "")
                row["findings"].append({"hazard": f["finding"]["hazard"], "access": access})
    # Found and not-checked end with the checker's statuses: the program's own is in the report.
    status = checked["status"]
    if plain["status"] is not None and plain["status"] < 0:
        row["differences"].append(f"crashed without the checker (signal {-plain['status']})")
    if checked["status"] is not None and checked["status"] < 0:
        row["differences"].append(f"crashed under the checker (signal {-checked['status']})")
    if report and report.get("program_end", {}).get("signalled"):
        row["differences"].append(f"ended by signal {report['program_end']['code']} under the checker")
    if not plain["timed_out"] and not checked["timed_out"]:
        if report and report.get("program_end") and not report["program_end"].get("signalled"):
            status = report["program_end"]["code"]
        if status != plain["status"]:
            row["differences"].append(f"exit status {plain['status']} without the checker, {status} under it")
        replaced = [PYTEST_DURATION] if command[1:3] == ["-m", "pytest"] else []
        a, b = masked(plain["stdout"], masks, replaced), masked(checked["stdout"], masks, replaced)
        a2 = masked(again["stdout"], masks, replaced)
        if expected.get("unordered"):  # processes that print at once: the same lines, in any order
            a, b, a2 = sorted(a), sorted(b), sorted(a2)
        noisy = {i for i in range(max(len(a), len(a2))) if i >= min(len(a), len(a2)) or a[i] != a2[i]}
        row["lines_varying_without_the_checker"] = len(noisy)
        # The program printed just this without the checker, in its second run (a sample that fails now and then
        # on its own, under the load of the other programs): the checker did not make it.
        printed_without = b == a2
        if len(a) == len(a2):
            a = ["<varies>" if i in noisy else line for i, line in enumerate(a)]
            b = ["<varies>" if i in noisy and i < len(b) else line for i, line in enumerate(b)]
        if a != b and not printed_without:
            first = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            row["differences"].append(
                f"standard output differs at line {first + 1}: {a[first] if first < len(a) else '<end>'!r} "
                f"without, {b[first] if first < len(b) else '<end>'!r} under the checker")
    # pytest's own statuses 2 to 5: the file was not run (a collection error, a usage error, no test): the
    # program did not run, which is never clean.
    if command[1:3] == ["-m", "pytest"] and plain["status"] in (2, 3, 4, 5):
        reason = next((l for l in plain["stdout"].splitlines() if l.startswith("ERROR ")), "")
        row["differences"].append(f"pytest did not run it (exit {plain['status']}) {reason}".strip())
    # A finding of work between GPUs (needs_gpus) is expected only where the program saw that many.
    listed = sorted(f["hazard"] for f in expected.get("findings", []) if f.get("needs_gpus", 1) <= getattr(args, "gpus", 1))
    seen = sorted(f["hazard"] for f in row["findings"])
    if "verdict" in expected:  # a program the checker cannot watch, with the reason the expectations give
        if row["verdict"] != expected["verdict"]["is"]:
            row["differences"].append(f"verdict {row['verdict']} where the expectations say {expected['verdict']['is']}")
    elif row["verdict"] == "found" and seen != listed:
        row["differences"].append(f"findings {seen} where the expectations list {listed}")
    elif row["verdict"] == "clean" and listed:
        row["differences"].append(f"clean where the expectations list {listed}")
    elif row["verdict"] not in ("clean", "found"):
        row["differences"].append(f"verdict {row['verdict']}: "
                                  + "; ".join((report or {}).get("not_checked_because", [])[:2]))
    row["result"] = ("DIFFERENT" if row["differences"] else "found (expected)" if listed
                     else f"{expected['verdict']['is']} (expected)" if "verdict" in expected else "clean")
    with open(os.path.join(cwd, "plain.out"), "w") as f:
        f.write(plain["stdout"] + "\n--- stderr ---\n" + plain["stderr"])
    with open(os.path.join(cwd, "checked.out"), "w") as f:
        f.write(checked["stdout"] + "\n--- stderr ---\n" + checked["stderr"])
    return row


def samples_environment():
    """Open MPI refuses to start as root unless told it may; simpleMPI starts it in its own process (MPI_Init,
    no mpirun), and is compared only if it runs. Nothing else reads these two."""
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def pytest_environment():
    """PyTorch's test utilities import `expecttest`; where it is missing, the stand-in beside this script."""
    env = dict(os.environ)
    if subprocess.run([sys.executable, "-c", "import expecttest"], capture_output=True).returncode != 0:
        stand_ins = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stand_ins")
        env["PYTHONPATH"] = stand_ins + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def validate(kind, checkout, args, expectations):
    """The corpus holds programs, and every program the expectations name is one of them: checked before
    anything is built or run, the same with or without a GPU. Returns the programs: name -> (category, folder)
    for the samples, name -> None for pytest files, name -> its listing for the library examples."""
    listed = expectations.get("corpora", {}).get(kind, {}).get("programs", {})
    if kind == "cuda-samples":
        programs = sample_folders(checkout)
    elif kind == "library-examples":
        programs = library_example_programs(checkout, args.library_examples)
    else:
        programs = {f: None for f in sorted(os.listdir(checkout)) if f.startswith("test_") and f.endswith(".py")}
        if not programs:
            raise BadInput(f"--corpus pytest={checkout!r}: no test_*.py file in it")
    return programs


def expectations_name_only_programs_given(corpora, programs, args, expectations):
    """Every program the expectations name is in a corpus of its kind that was given."""
    for kind in {k for k, _ in corpora}:
        given = set().union(*(found for (k, _), found in zip(corpora, programs) if k == kind))
        for name in expectations.get("corpora", {}).get(kind, {}).get("programs", {}):
            if name not in given:
                where = ", ".join(c for k, c in corpora if k == kind)
                raise BadInput(f"--expectations {args.expectations!r}: {kind} program {name!r} is not in {where}")


def programs_of(kind, checkout, programs, args, expectations):
    """(name, command, cwd, masks, expected, environment) for every program to run, (name, reason) for those
    excluded, and (name, reason) for the library examples that did not build."""
    corpus = expectations.get("corpora", {}).get(kind, {})
    listed = corpus.get("programs", {})
    default_masks = [re.compile(m) for m in DEFAULT_MASKS + corpus.get("mask", [])]
    jobs, excluded, not_built = [], [], []
    if kind == "cuda-samples":
        own_arguments = samples_own_arguments(checkout)
        build, configure_log, build_log = build_cuda_samples(checkout, args.work, args.jobs,
                                                             compute_capability(args.hazardlab))
        for name, (category, folder) in sorted(programs.items()):
            if not args.only_re.search(name):
                continue
            expected = listed.get(name, {})
            exe = executable_of(build, category, name, folder)
            if exe is None:
                excluded.append((name, why_not_built(name, configure_log, build_log)))
                continue
            if "exclude" in expected:
                excluded.append((name, expected["exclude"]))
                continue
            own = own_arguments.get(name, {})
            if own.get("skip"):
                excluded.append((name, "the samples' own test_args.json skips it (it needs a display or another "
                                       "platform)"))
                continue
            # Run where the samples' own runner runs them: the folder of the executable, in the build, where
            # their CMake put the data files they read and where they write what they produce.
            cwd = os.path.dirname(exe)
            masks = default_masks + [re.compile(m) for m in expected.get("mask", [])]
            arguments = expected.get("args", own.get("args", []))
            jobs.append((name, [exe] + arguments, cwd, masks, expected, samples_environment()))
    elif kind == "library-examples":
        chosen = []
        for name, program in programs.items():
            expected = listed.get(name, {})
            if not args.only_re.search(name):
                continue
            if "exclude" in expected:
                excluded.append((name, expected["exclude"]))
                continue
            chosen.append((name, program, expected))
        arch, nvcc = compute_capability(args.hazardlab), cuda_compiler()
        build_root = os.path.join(args.work, "library-examples-build")
        os.makedirs(build_root, exist_ok=True)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            built = list(pool.map(lambda c: build_library_example(c[0], c[1], checkout, build_root, arch, nvcc),
                                  chosen))
        for (name, program, expected), (exe, why) in zip(chosen, built):
            # Each was chosen because it builds with the toolkit alone: one that does not is reported, never run.
            if exe is None:
                not_built.append((name, why))
                continue
            cwd = os.path.join(args.work, "runs", "library-examples", name)
            os.makedirs(cwd, exist_ok=True)
            masks = default_masks + [re.compile(m) for m in expected.get("mask", [])]
            jobs.append((name, [exe] + [str(a) for a in program.get("args", [])], cwd, masks, expected,
                         dict(os.environ)))
    else:
        for name in programs:
            expected = listed.get(name, {})
            if not args.only_re.search(name):
                continue
            if "exclude" in expected:
                excluded.append((name, expected["exclude"]))
                continue
            cwd = os.path.join(args.work, "runs", "pytest", name)
            os.makedirs(cwd, exist_ok=True)
            # Test outcomes, not timings: each test's outcome and the summary line, the durations masked.
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", "--tb=line",
                       "-o", "console_output_style=classic", os.path.join(checkout, name),
                       "-k", expected.get("select", SELECT_PYTEST)]
            # Each test's outcome is compared (-rA lists them), so no line is masked by the samples' patterns.
            masks = [re.compile(m) for m in corpus.get("mask", []) + expected.get("mask", [])]
            jobs.append((name, command, cwd, masks, expected, pytest_environment()))
    return jobs, excluded, not_built


def main(argv):
    try:
        args, corpora = parse_args(argv)
        expectations = load_expectations(args.expectations)
        programs = [validate(kind, checkout, args, expectations) for kind, checkout in corpora]
        expectations_name_only_programs_given(corpora, programs, args, expectations)
        if not corpora:
            print("check_corpus: no corpus checkout was given: nothing run (configure with "
                  "-DHAZARDLAB_CORPUS_CUDA_SAMPLES=PATH, -DHAZARDLAB_CORPUS_PYTEST=PATH or "
                  "-DHAZARDLAB_CORPUS_LIBRARY_EXAMPLES=PATH)")
            return 77
        os.makedirs(args.work, exist_ok=True)
        args.gpus = gpus_usable(args.hazardlab)
        if args.gpus == 0:
            print("check_corpus: no usable GPU here: nothing run")
            return 77
        plans = [(kind, checkout) + programs_of(kind, checkout, found, args, expectations)
                 for (kind, checkout), found in zip(corpora, programs)]
    except BadInput as e:
        print(f"check_corpus: {e}", file=sys.stderr)
        return 2
    rows, excluded_all, not_built_all = [], [], []
    for kind, checkout, jobs, excluded, not_built in plans:
        excluded_all += [(kind, n, why) for n, why in excluded]
        not_built_all += [(kind, n, why) for n, why in not_built]
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for row in pool.map(lambda j: compare(*j[:5], args, j[5]), jobs):
                row["corpus"] = kind
                rows.append(row)
                print(f"{kind:16} {row['program']:44} {str(row['plain_status']):>4} {str(row['checked_status']):>4} "
                      f"{row['verdict']:12} {row['result']}" +
                      "".join(f"\n    {d}" for d in row["differences"]), flush=True)
    for kind, name, why in not_built_all:
        print(f"{kind:16} {name:44} NOT BUILT: {why}")
    for kind, name, why in excluded_all:
        print(f"{kind:16} {name:44} excluded: {why}")
    different = [r for r in rows if r["differences"]]
    found = [r for r in rows if r["result"] == "found (expected)"]
    clean = [r for r in rows if r["result"] == "clean"]
    unwatched = [r for r in rows if r["result"] == "not-checked (expected)"]
    print(f"{len(rows)} program(s) run: {len(clean)} clean, {len(found)} with expected findings, {len(unwatched)} "
          f"not watchable (expected), {len(different)} different; {len(not_built_all)} not built; "
          f"{len(excluded_all)} excluded")
    backends = sorted({b for r in rows for b in r["protection"]})
    if backends:
        print("protected by: " + ", ".join(f"{b} in {sum(1 for r in rows if b in r['protection'])} program(s)"
                                           for b in backends))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "excluded": [{"corpus": k, "program": n, "why": w} for k, n, w in excluded_all],
                       "not_built": [{"corpus": k, "program": n, "why": w} for k, n, w in not_built_all]},
                      f, indent=1)
    return 1 if different or not_built_all else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
