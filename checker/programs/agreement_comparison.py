"""check-agreement's generated programs under `hazardlab check --every-occurrence`, compared with the happens-before
model's prediction: every finding it predicts is reported, with the deviations it names, and nothing else is."""
import json
import os
import random
import subprocess
import sys
import tempfile

from checked_report import findings, passed_on_if_refused, protected_as_asked


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
        if not os.path.exists(report_file):
            passed_on_if_refused(run.returncode, run.stderr)
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
