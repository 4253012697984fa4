#!/usr/bin/env python3
"""Runs a program under `hazardlab check` and checks what it said.

  expect_check.py HAZARDLAB found|clean|clean-any-exit [--hazard ID] [--relies-on NAME] [--copy-in FN --not-in FN] -- PROGRAM ARGS
  expect_check.py HAZARDLAB clean-as-alone|as-alone -- PROGRAM ARGS
      the program run alone, then under the checker, with the same exit status (or signal) and the same standard
      output (the program behaves under the checker exactly as without it). clean-as-alone: it succeeds alone and
      is clean; as-alone (a program that crashes on purpose): nothing is found, and a process that ended by its
      signal before its summary may be not-checked.
  expect_check.py HAZARDLAB not-checked --because TEXT -- PROGRAM ARGS
      not-checked, and a process says why with TEXT in it.
  expect_check.py HAZARDLAB MODE --needs-python-module NAME ...: skipped (77) where Python cannot import NAME
  expect_check.py HAZARDLAB MODE --needs-gpus N ...: skipped (77) where fewer than N GPUs are usable
  expect_check.py HAZARDLAB under-nsys -- PROGRAM ARGS
      `nsys profile -- hazardlab check -- PROGRAM ARGS`: the checker cannot watch where Nsight Systems holds CUDA's
      injection or CUPTI, and must say so, naming it (skipped where nsys is not on PATH).
  expect_check.py HAZARDLAB agreement RUNNER PROGRAMS SEED|random
      check-agreement's generated programs run under `hazardlab check --every-occurrence`: every finding the
      happens-before model predicts is reported with the deviations it names, and nothing else is.
  expect_check.py HAZARDLAB suite CASES HAZARD
      every variant of HAZARD run by the suite's case runner under the checker: each positive control found,
      each guard and rule clean (the mutation check, which misuses the API on purpose, is off). A variant the
      runner skips (exit 77: a requirement this machine does not meet, such as a second GPU) is skipped, and
      when every variant is, the test is.

Exits 77 (a skip) where the machine has no usable GPU, 0 when the checker said what it must, 1 otherwise, 2 for a
command line it cannot take (an unknown mode or option, an option the mode does not read or a blank one, a
HAZARDLAB that is not hazardlab, a missing program or operand, --needs-gpus not a number, a bad
EXPECT_CHECK_OPTIONS or HL_CHECK_PROTECTION: expect_check_command_line.py), said before anything runs, or refused
by hazardlab itself (its message passed on). expect_check.py --help prints this."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import json

from agreement_comparison import agreement
from checked_report import CLEAN, check, findings, frames, gpu_count

from expect_check_command_line import read_command_line


SKIPPED = 77  # the exit status of a program (or a suite case) that did not run: no GPU, or a requirement unmet


def expect(hazardlab, want, command, hazard=None, relies_on=None, copy_in=None, not_in=None, because=None,
           skippable=False):
    """True when the checker said what `want` asks; with `skippable`, None when the program exited 77 under it
    with nothing found (it did not run)."""
    alone = (subprocess.run(command, capture_output=True, text=True, timeout=600)
             if want in ("clean-as-alone", "as-alone") else None)
    output = []
    rc, report = check(hazardlab, command, output=output)
    if report is None:
        print(f"FAIL: hazardlab check wrote no report (exit {rc})")
        return False
    if skippable and report["program_end"].get("code") == SKIPPED and report["verdict"] != "found":
        print(f"skipped: the program exited {SKIPPED} (it did not run here)")
        return None
    problems = []
    if want in ("clean-as-alone", "as-alone"):
        allowed = CLEAN if want == "clean-as-alone" else CLEAN + ("not-checked",)
        if report["verdict"] not in allowed:
            problems.append(f"expected {' or '.join(allowed)}, got {report['verdict']}")
        if want == "clean-as-alone" and alone.returncode != 0:
            problems.append(f"the program alone exited {alone.returncode}:\n{alone.stderr[-2000:]}")
        if rc != alone.returncode:
            problems.append(f"exit {rc} under the checker, {alone.returncode} alone")
        if output[0] != alone.stdout:
            problems.append(f"other output under the checker:\n{output[0][-2000:]}\nalone:\n{alone.stdout[-2000:]}")
    elif want == "not-checked":
        reasons = [p.get("not_watching_because", "") for p in report["processes"]] + \
                  [n for p in report["processes"] for n in p.get("notes", [])]
        if report["verdict"] != "not-checked" or not any(because in r for r in reasons):
            problems.append(f"expected not-checked because of {because!r}, got {report['verdict']}: {reasons}")
    elif want in ("clean", "clean-any-exit"):
        # clean-any-exit: a lesson judges its own trials and may exit 1; the checker must still say clean.
        program_exit = report["program_end"]["code"]
        if report["verdict"] not in CLEAN or rc != program_exit or (want == "clean" and rc != 0):
            problems.append(f"expected clean and the program's exit status, got {report['verdict']} and exit {rc}")
    else:
        if report["verdict"] != "found" or rc != 66:
            problems.append(f"expected found and exit 66, got {report['verdict']} and exit {rc}")
        found = findings(report)
        if hazard and not any(f["finding"]["hazard"] == hazard for f in found):
            problems.append(f"no finding names {hazard}: {[f['finding']['hazard'] for f in found]}")
        if relies_on and not any(any(r["name"] == relies_on for r in f["finding"]["relies_on"]) for f in found):
            problems.append(f"no finding relies on {relies_on}")
        for f in found:
            copy = frames(f["copy_stack"])
            if copy_in and copy_in not in copy:
                problems.append(f"a copy stack without {copy_in}: {copy}")
            if not_in and not_in in copy:
                problems.append(f"a finding in {not_in}: {copy}")
    for p in problems:
        print("FAIL:", p)
    return not problems


HOLDER_NAMED = re.compile(r'held by "([^"]+)"')
INJECTION_NAMED = re.compile(r"CUDA_INJECTION64_PATH is already set \(([^)]+)\)")


def under_nsys(hazardlab, command):
    """`nsys profile -- hazardlab check -- PROGRAM`: Nsight Systems takes CUDA's injection variable or CUPTI first,
    and the checker must say it could not watch, naming what holds it: refused before the program runs (the
    variable set, with its value), or not-checked with CUPTI's name of the holder. Returns 0, 1, or 77 where nsys is
    not on PATH."""
    nsys = shutil.which("nsys")
    if nsys is None:
        print("nsys is not on PATH: skipped")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "check.json")
        run = subprocess.run([nsys, "profile", "--output", os.path.join(tmp, "profile"), "--force-overwrite", "true",
                              "--", hazardlab, "check", "--json", report, "--"] + command, capture_output=True,
                             text=True, timeout=600)
        said = run.stdout + run.stderr
        loaded = None
        if os.path.exists(report):
            with open(report) as f:
                loaded = json.load(f)
    sys.stdout.write(said[-6000:])
    if loaded is None:
        named = INJECTION_NAMED.search(said)
        if named is None:
            print(f"FAIL: no report, and no refusal naming CUDA's injection variable (exit {run.returncode})")
            return 1
        print(f"refused before the program ran: CUDA_INJECTION64_PATH was {named.group(1)}")
        return 0
    reasons = [q.get("not_watching_because") or "" for q in loaded["processes"]]
    holders = [m.group(1) for m in map(HOLDER_NAMED.search, reasons) if m]
    if loaded["verdict"] != "not-checked" or not holders:
        print(f"FAIL: expected not-checked with CUPTI's holder named, got {loaded['verdict']}: {reasons}")
        return 1
    print(f"not-checked: CUPTI is held by {holders[0]!r}")
    return 0


def variants(hazardlab, hazard):
    out = subprocess.run([hazardlab, "list"], capture_output=True, text=True, check=True).stdout.splitlines()
    found, inside = [], False
    for line in out:
        if not line.startswith(" "):
            inside = line.split(":")[0] == hazard
        elif inside:
            name, kind = line.strip().split(" ", 1)
            found.append((name, kind.split(")")[0].strip("(")))
    return found


def suite(hazardlab, cases, hazard):
    """True when every variant that ran was as expected, False when one was not, None when none ran."""
    env = dict(os.environ, HAZARDLAB_MUTATION_CHECK="0", HAZARDLAB_PROPERTY_CASES="20", HAZARDLAB_TRIALS="5")
    results = []
    for name, kind in variants(hazardlab, hazard):
        if kind not in ("control", "guard", "rule"):
            continue
        command = [cases, "--device", "0", "--hazard", hazard, "--variant", name]
        os.environ.update(env)
        want = "found" if kind == "control" else "clean"
        print(f"--- {hazard}/{name} ({kind}): expecting {want}")
        results.append(expect(hazardlab, want, command, skippable=True))
    if not results:
        print(f"FAIL: {hazard} has no control, guard or rule (`hazardlab list`)")
        return False
    if all(r is None for r in results):
        return None
    return all(r is not False for r in results)


def main():
    args = read_command_line(sys.argv[1:], __doc__)
    for module in args.needs_python_module:
        # The name is handed over as an argument, never made into code: `import {module}` would run a value such
        # as "os; os.remove(...)".
        if subprocess.run([sys.executable, "-c", "import importlib, sys; importlib.import_module(sys.argv[1])",
                           module], capture_output=True).returncode != 0:
            print(f"Python cannot import {module}: skipped")
            return 77
    gpus = gpu_count(args.hazardlab)
    if gpus == 0:
        print("no usable GPU: skipped")
        return 77
    if gpus < args.needs_gpus:
        print(f"{gpus} usable GPU(s), {args.needs_gpus} needed: skipped")
        return 77
    if args.mode == "agreement":
        return 0 if agreement(args.hazardlab, *args.operands) else 1
    if args.mode == "under-nsys":
        return under_nsys(args.hazardlab, args.command)
    if args.mode == "suite":
        ok = suite(args.hazardlab, *args.operands)
        return SKIPPED if ok is None else 0 if ok else 1
    return 0 if expect(args.hazardlab, args.mode, args.command, args.hazard, args.relies_on, args.copy_in,
                       args.not_in, args.because) else 1


if __name__ == "__main__":
    sys.exit(main())
