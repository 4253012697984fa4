"""Which programs of each corpus run, and how: the corpus checked to hold programs and every program the
expectations name (before anything is built), then each program's command, folder, masks, expectations and
environment."""
import concurrent.futures
import os
import re
import subprocess
import sys

from corpus_devices import compute_capability
from corpus_documents import BadInput
from cuda_samples import (build_cuda_samples, executable_of, sample_folders, samples_environment,
                          samples_own_arguments, why_not_built)
from library_examples import build_library_example, cuda_compiler, library_example_programs

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
    if kind == "cuda-samples":
        programs = sample_folders(checkout)
        samples_own_arguments(checkout)  # its arguments checked now; read again where the programs are planned
    elif kind == "library-examples":
        programs = library_example_programs(checkout, args.library_examples)
        cuda_compiler()  # a CUDACXX that is not a compiler is refused now, before anything is made
    else:
        programs = {f: None for f in sorted(os.listdir(checkout)) if f.startswith("test_") and f.endswith(".py")}
        if not programs:
            raise BadInput(f"--corpus pytest={checkout!r}: no test_*.py file in it")
    return programs


def refuse_pytest_files_of_one_name(corpora, programs):
    """Each pytest file runs in a folder of --work named after it: two folders holding files of one name would
    share it, one's outputs replacing the other's, and their rows would read alike."""
    seen = {}
    for (kind, checkout), found in zip(corpora, programs):
        if kind != "pytest":
            continue
        for name in found:
            if name in seen:
                raise BadInput(f"--corpus pytest={checkout!r} and --corpus pytest={seen[name]!r} both hold {name!r}: "
                               "each pytest file runs under its name; give folders whose file names differ")
            seen[name] = checkout


def expectations_name_only_programs_given(corpora, programs, args, expectations):
    """Every program the expectations name is in a corpus of its kind that was given; returns the pytest files they
    name that no folder given holds. The pytest expectations describe the test files of several projects (PyTorch's
    and CuPy's), and a folder may hold one project's: a file absent there is named in the summary, not refused,
    as long as one file they name is given (none: the folders are not the ones they describe, or the names are
    misspelt)."""
    not_given = []
    for kind in {k for k, _ in corpora}:
        given = set().union(*(found for (k, _), found in zip(corpora, programs) if k == kind))
        listed = list(expectations.get("corpora", {}).get(kind, {}).get("programs", {}))
        absent = [name for name in listed if name not in given]
        if absent and (kind != "pytest" or len(absent) == len(listed)):
            where = ", ".join(c for k, c in corpora if k == kind)
            raise BadInput(f"--expectations {args.expectations!r}: {kind} program {absent[0]!r} is not in {where}" +
                           (" (nor is any pytest file they list: expected a folder of the test files they describe)"
                            if kind == "pytest" else ""))
        if kind == "pytest":
            not_given += absent
    return not_given


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
            jobs.append((name, [exe] + program.get("args", []), cwd, masks, expected,
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
