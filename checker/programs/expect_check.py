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

Exits 77 (a skip) where the machine has no usable GPU, 0 when the checker said what it must, 1 otherwise."""
import json
import re
import os
import random
import shutil
import subprocess
import sys
import tempfile


def gpu_count(hazardlab):
    """The GPUs this process can use, as `hazardlab devices` lists them (0 where it cannot say)."""
    out = subprocess.run([hazardlab, "devices", "--json"], capture_output=True, text=True, timeout=120)
    try:
        return len(json.loads(out.stdout).get("devices", [])) if out.returncode == 0 else 0
    except json.JSONDecodeError:
        return 0


# EXPECT_CHECK_OPTIONS="--sample 100" runs the same expectations in the faster mode (where a clean program
# whose copies were not all watched is "sampled").
EXTRA = os.environ.get("EXPECT_CHECK_OPTIONS", "").split()
CLEAN = ("clean", "sampled") if "--sample" in EXTRA else ("clean",)


# HL_CHECK_PROTECTION=keys (or range-keys, or mprotect) runs the same expectations under that page protection:
# every watched process must say it was protected so, or the expectation fails (a machine without keys must not
# pass for one). The backend each value asks for, as the reports name it:
BACKEND_ASKED = {"keys": "protection-keys", "range-keys": "protection-keys", "mprotect": "mprotect"}
ASKED_PROTECTION = BACKEND_ASKED.get(os.environ.get("HL_CHECK_PROTECTION", ""))


def protected_as_asked(report):
    if ASKED_PROTECTION is None:
        return
    for p in report["processes"]:
        got = (p.get("protection") or {}).get("backend")
        if p.get("watching") and got != ASKED_PROTECTION:
            print(f"FAIL: {ASKED_PROTECTION} was asked for, but process {p.get('pid')} was protected by {got} "
                  f"({(p.get('protection') or {}).get('why')})")
            sys.exit(1)


def check(hazardlab, command, env=None, output=None):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "check.json")
        run = subprocess.run([hazardlab, "check", "--json", report] + EXTRA + ["--"] + command, capture_output=True,
                             text=True, env=env, timeout=600)
        sys.stdout.write(run.stderr[-6000:])
        if output is not None:
            output.append(run.stdout)
        if not os.path.exists(report):
            return run.returncode, None
        with open(report) as f:
            loaded = json.load(f)
        protected_as_asked(loaded)
        return run.returncode, loaded


def findings(report):
    return [f for p in report["processes"] for f in p["findings"]]


def enclosing_function(location):
    """The function of a C or C++ source file that holds `file:line`: addr2line can name an inlined frame by
    the function it was inlined into, so a lesson's `unsafe` and `fixed` halves are told apart by their lines."""
    path, _, line = location.partition(" ")[0].rpartition(":")
    if not line.isdigit() or not os.path.isfile(path):
        return ""
    with open(path, errors="replace") as f:
        lines = f.readlines()[: int(line)]
    for text in reversed(lines):
        m = re.match(r"^(?:static\s+)?[\w:<>*&\s]+?\b(\w+)\s*\(", text)
        if m and not text.startswith((" ", "\t", "#", "//")):
            return m.group(1)
    return ""


def frames(stack):
    return " | ".join(fr.get("function", "?") + "/" + enclosing_function(fr.get("location", "")) for fr in stack)


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


def compare_agreement(report, expected, describe):
    """The checker's report against the model's prediction: the problems, and a line of counts. `describe`: the
    runner's command that prints a program again (with --describe N)."""
    problems = []
    if report["program_end"]["code"] != 0 or report["program_end"].get("signalled"):
        problems.append(f"the runner ended with {report['program_end']}")
    if report["verdict"] not in ("found", "clean"):
        problems.append(f"verdict {report['verdict']}: the runner was not wholly watched")
    where = {c["id"]: (c["program"], c["command"]) for c in expected["copies"]}
    checked = {}
    device_findings = [f for f in findings(report) if "race" in f["finding"]]
    device_problems, device_line = compare_device_races(device_findings, expected.get("device"), describe)
    problems += device_problems
    for f in findings(report):
        if "race" in f["finding"]:
            continue
        key = (f["finding"]["copy"]["id"], f["finding"]["offset"])
        if key in checked:
            problems.append(f"copy #{key[0]} reported twice")
        checked[key] = sorted(r["name"] for r in f["finding"]["relies_on"])
    exact = {(e["copy_id"], e["offset"]): e for e in expected["expected"] if not e["timing_dependent"]}
    # A finding a host function's start may clear, or whose first access is inside a host function (which runs
    # when its stream reaches it, so a later access to the copy's bytes may come first): reported or not, and
    # if reported, at one of the accesses the model allows.
    timing = {}
    for e in expected["expected"]:
        if e["timing_dependent"]:
            for offset in [e["offset"]] + e["or_offsets"]:
                timing[(e["copy_id"], offset)] = e
    # A copy is reported at its first conflicting access. A host function queued before it may run after it was
    # issued and touch its bytes first: then the copy is reported there, inside the function, and not again at
    # the later access the model predicts whatever the timing, if that access is one the function's finding
    # allows in its stead.
    def first_reported_in_a_host_function(key):
        for (copy, offset) in checked:
            e = timing.get((copy, offset))
            if copy == key[0] and e is not None and e["in_host_function"] and key[1] in e["or_offsets"]:
                return True
        return False
    displaced = set()
    for key, e in exact.items():
        what = f"program {e['program']}, access #{e['access']}, copy #{e['copy']}"
        if key not in checked:
            if first_reported_in_a_host_function(key):
                displaced.add(key)
            else:
                problems.append(f"not reported: {what}, predicted relying on {e['relies_on']} (the program: "
                                f"{describe} --describe {e['program']})")
        elif checked[key] != sorted(e["relies_on"]):
            problems.append(f"{what}: reported relying on {checked[key]}, predicted {sorted(e['relies_on'])}")
    for key in checked:
        if key not in exact and key not in timing:
            program, command = where.get(key[0], ("?", "?"))
            problems.append(f"reported, not predicted: program {program}, access #{key[1]}, copy #{command} "
                            f"(the program: {describe} --describe {program})")
    timing_found = sum(1 for key in timing if key in checked)
    if len(set(k[0] for k in checked if k in timing)) != timing_found:
        problems.append("a copy reported at two of the accesses its finding allows")
    with_deviation = sum(1 for e in exact.values() if e["relies_on"])
    in_host_functions = sum(1 for key, e in timing.items() if e["in_host_function"] and key in checked)
    line = (f"programs {expected['programs']}: {len(exact)} findings predicted whatever the timing, "
            f"{sum(1 for k in exact if k in checked)} reported as predicted ({with_deviation} naming a deviation)"
            f"{f', {len(displaced)} reported first inside a host function' if displaced else ''}; "
            f"{len(timing)} that a host function's start may order, {timing_found} of them reported "
            f"({in_host_functions} inside host functions); {len(checked)} reported in all; {device_line}")
    # The programs must exercise what is compared.
    if len(exact) < 100 or with_deviation == 0:
        problems.append("too few predicted findings to compare: the generator or the runner changed")
    return problems, line


def compare_device_races(reported, device, describe):
    """The device's half: every race the checker reported is a pair the model leaves racing (matched by the
    buffer its address is in, both streams, both kinds of work and both accesses), and in each program with
    races the first racing command is reported (FastTrack finds the first race on each byte exactly), unless a
    host function's start may have ordered it. The problems, and a line of counts."""
    problems = []
    if device is None:
        return ([f"{len(reported)} device races reported, and the runner predicted none"] if reported else []), \
            "no device prediction"
    buffers = [(b["begin"], b["end"], b["program"], b["buffer"]) for b in device["buffers"]]

    def buffer_of(address):
        for begin, end, program, buffer in buffers:
            if begin <= address < end:
                return program, buffer
        return None, None

    def side(f, which):
        w = f["finding"]["race"][which]
        return w["stream"], w["work"], w["access"]
    matched_laters = set()
    for f in reported:
        program, buffer = buffer_of(f["finding"]["address"])
        earlier, later = side(f, "earlier"), side(f, "later")
        match = [r for r in device["races"] if r["program"] == program and r["buffer"] == buffer
                 and (r["earlier_stream"], r["earlier_work"], r["earlier_access"]) == earlier
                 and (r["later_stream"], r["later_work"], r["later_access"]) == later]
        if not match:
            problems.append(f"device race reported, not predicted: program {program}, buffer {buffer}, earlier "
                            f"{earlier}, later {later} (the program: {describe} --describe {program})")
        for r in match:
            matched_laters.add((program, r["later"]))
    first = {}
    for r in device["races"]:
        if r["program"] not in first or r["later"] < first[r["program"]][0]["later"]:
            first[r["program"]] = [r]
        elif r["later"] == first[r["program"]][0]["later"]:
            first[r["program"]].append(r)
    required = 0
    for program, races in first.items():
        if all(r["clearable"] for r in races):
            continue
        required += 1
        if (program, races[0]["later"]) not in matched_laters:
            problems.append(f"device race not reported: program {program}, the first racing command #{races[0]['later']} "
                            f"(the program: {describe} --describe {program})")
    line = (f"device races: {len(device['races'])} racing pairs predicted in {len(first)} programs, the first "
            f"reported in {required - sum(1 for p in problems if p.startswith('device race not'))} of {required} "
            f"that no host function may order; {len(reported)} reported")
    return problems, line


def agreement(hazardlab, runner, programs, seed):
    if seed == "random":
        seed = str(random.getrandbits(63))
    print(f"check-agreement with seed {seed} (the same programs again: this script with that seed)")
    with tempfile.TemporaryDirectory() as tmp:
        expect_file, report_file = os.path.join(tmp, "expected.json"), os.path.join(tmp, "check.json")
        run = subprocess.run([hazardlab, "check", "--every-occurrence", "--json", report_file, "--", runner,
                              "--programs", programs, "--seed", seed, "--expect", expect_file],
                             capture_output=True, text=True, timeout=900)
        sys.stdout.write(run.stdout[-2000:])
        summary = [line for line in run.stderr.splitlines() if "HAZARDLAB CHECK SUMMARY" in line or "NOT CHECKED" in line]
        print("\n".join(summary) if summary else run.stderr[-3000:])
        if not os.path.exists(report_file) or not os.path.exists(expect_file):
            print(f"FAIL: no report or no prediction (hazardlab check exited {run.returncode})")
            return False
        with open(report_file) as f:
            report = json.load(f)
        protected_as_asked(report)
        with open(expect_file) as f:
            expected = json.load(f)
    problems, line = compare_agreement(report, expected, f"{os.path.basename(runner)} --programs {programs} --seed {seed}")
    print(line)
    for p in problems[:40]:
        print("FAIL:", p)
    if len(problems) > 40:
        print(f"FAIL: ... and {len(problems) - 40} more")
    return not problems


def main():
    args = sys.argv[1:]
    hazardlab, mode = args[0], args[1]
    # --needs-python-module NAME and --needs-gpus N, anywhere among the options (before the program's `--`).
    gpus_needed = 1
    i = 2
    while i + 1 < len(args) and args[i] != "--":
        if args[i] not in ("--needs-python-module", "--needs-gpus"):
            i += 1
            continue
        option, value = args[i], args[i + 1]
        del args[i:i + 2]
        if option == "--needs-gpus":
            gpus_needed = int(value)
        elif subprocess.run([sys.executable, "-c", f"import {value}"], capture_output=True).returncode != 0:
            print(f"Python cannot import {value}: skipped")
            return 77
    gpus = gpu_count(hazardlab)
    if gpus == 0:
        print("no usable GPU: skipped")
        return 77
    if gpus < gpus_needed:
        print(f"{gpus} usable GPU(s), {gpus_needed} needed: skipped")
        return 77
    if mode == "agreement":
        return 0 if agreement(hazardlab, args[2], args[3], args[4]) else 1
    if mode == "under-nsys":
        return under_nsys(hazardlab, args[args.index("--") + 1:])
    if mode == "suite":
        ok = suite(hazardlab, args[2], args[3])
        return SKIPPED if ok is None else 0 if ok else 1
    split = args.index("--")
    options, command = args[2:split], args[split + 1:]
    named = dict(zip(options[::2], options[1::2]))
    return 0 if expect(hazardlab, mode, command, named.get("--hazard"), named.get("--relies-on"),
                       named.get("--copy-in"), named.get("--not-in"), named.get("--because")) else 1


if __name__ == "__main__":
    sys.exit(main())
