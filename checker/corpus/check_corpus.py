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
A finding must be listed in the expectations file, which says why it is true. Every program the expectations
name must be in a corpus given, but for pytest files: a folder may hold one project's tests, and a file listed
that no folder holds is named as not given (at least one file listed must be there). One row per program, then a
summary. --work is new, empty, or one an earlier run made (its marker, .check-corpus-work); no output goes inside a
corpus checkout. Exit status: 0 when every program behaved the same and was clean or found only what is expected;
1 on any difference, crash or unexpected finding, or a listed library example that did not build; 2 on bad input;
77 where there is no GPU.
"""
import os
import re
import sys

from corpus_devices import gpus_usable, refuse_unknown_hazards
from corpus_documents import KINDS, BadInput, load_expectations, load_library_examples
from corpus_programs import (expectations_name_only_programs_given, programs_of, refuse_pytest_files_of_one_name,
                             validate)
from corpus_runs import compare
from corpus_work import (make_work_folder, refuse_a_folder_not_ours, refuse_outputs_inside_a_corpus,
                         refuse_what_work_would_replace)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "drivers"))
from driver_options import (DriverParser, hazardlab_program, input_file, output_file, whole_number,  # noqa: E402
                            work_folder, write_output)
import concurrent.futures  # noqa: E402
import json  # noqa: E402


def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    p = DriverParser(prog="check_corpus.py", description=__doc__.split("\n")[0])
    p.add_argument("--hazardlab", required=True, type=hazardlab_program, help="the hazardlab program")
    p.add_argument("--corpus", action="append", default=[], metavar="KIND=CHECKOUT",
                   help="a corpus to run; KIND=\"\" (nothing after the =) is a corpus not given here: skipped")
    p.add_argument("--work", required=True, type=work_folder,
                   help="a folder for builds and runs: new, empty, or one an earlier run made (nothing else is "
                        "touched)")
    p.add_argument("--expectations", type=input_file, default=os.path.join(here, "expectations.json"))
    p.add_argument("--library-examples", type=input_file, default=os.path.join(here, "library_examples.json"),
                   help="the library-examples corpus: each program's files, build and arguments")
    p.add_argument("--jobs", type=whole_number(1, 64), default=4)
    p.add_argument("--only", default="", help="run only the programs whose name matches this regular expression")
    p.add_argument("--timeout", type=whole_number(1, 3600), default=120, help="seconds a program may run, each way")
    p.add_argument("--json", type=output_file, help="write every row as JSON here")
    args = p.parse(argv, outputs=("--json",), inputs=("--hazardlab", "--expectations", "--library-examples"))
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
            raise BadInput(f"--corpus {spec!r}: expected a folder; {path!r} " +
                           ("is a file" if os.path.lexists(path) else "does not exist"))
        if (kind, os.path.realpath(path)) in {(k, os.path.realpath(c)) for k, c in corpora}:
            raise BadInput(f"--corpus {spec!r} is given twice: each corpus once (its programs would run twice)")
        corpora.append((kind, os.path.abspath(path)))
    try:
        args.only_re = re.compile(args.only)
    except re.error as e:
        raise BadInput(f"--only {args.only!r}: not a regular expression ({e})")
    args.hazardlab = os.path.abspath(args.hazardlab)
    args.work = os.path.abspath(args.work)
    refuse_outputs_inside_a_corpus(corpora, (("--json", args.json), ("--work", args.work)))
    refuse_what_work_would_replace(args.work, args.json, corpora)
    refuse_a_folder_not_ours(args.work)
    p.refuse_outputs_not_ours(args)
    return args, corpora


def main(argv):
    try:
        args, corpora = parse_args(argv)
        expectations = load_expectations(args.expectations)
        refuse_unknown_hazards(args.hazardlab, expectations, args.expectations)
        load_library_examples(args.library_examples)  # every document given is checked, its corpus given or not
        programs = [validate(kind, checkout, args, expectations) for kind, checkout in corpora]
        refuse_pytest_files_of_one_name(corpora, programs)
        not_given = expectations_name_only_programs_given(corpora, programs, args, expectations)
        if corpora and args.only and not any(args.only_re.search(name) for found in programs for name in found):
            raise BadInput(f"--only {args.only!r} matches no program of the corpora given: expected a regular "
                           "expression matching a program's name (a sample, a test_*.py file, a library example)")
        if not corpora:
            print("check_corpus: no corpus checkout was given: nothing run (configure with "
                  "-DHAZARDLAB_CORPUS_CUDA_SAMPLES=PATH, -DHAZARDLAB_CORPUS_PYTEST=PATH or "
                  "-DHAZARDLAB_CORPUS_LIBRARY_EXAMPLES=PATH)")
            return 77
        make_work_folder(args.work)
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
    for name in not_given:
        print(f"{'pytest':16} {name:44} not given: the expectations list it, no --corpus pytest folder holds it")
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
    written = not args.json or write_output("--json", args.json, json.dumps(
        {"rows": rows, "excluded": [{"corpus": k, "program": n, "why": w} for k, n, w in excluded_all],
         "not_built": [{"corpus": k, "program": n, "why": w} for k, n, w in not_built_all]}, indent=1))
    return 1 if different or not_built_all or not written else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
