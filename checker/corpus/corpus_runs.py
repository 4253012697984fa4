"""One program of a corpus, run without and under `hazardlab check` and compared: the exit status, the standard
output (masked lines left out, lines that vary between two runs without the checker set aside), the verdict and the
findings against the expectations."""
import json
import os
import re
import subprocess


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
    # Only this run's report is read: one an earlier run left in this folder (the harness's own, --work is
    # proven its own) goes first.
    if os.path.lexists(report_path):
        os.remove(report_path)
    # The checker's own exit statuses are set apart from the program's, so that its status is compared as is.
    checked = run([args.hazardlab, "check", "--error-exitcode", "251", "--unchecked-exitcode", "252",
                   "--json", report_path, "--"] + command, cwd, timeout * 3, env)
    report, unreadable = None, None
    if os.path.exists(report_path):
        try:
            with open(report_path, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError, RecursionError) as err:
            unreadable = f"the checker's report {report_path} could not be read ({str(err)[:120]})"
    row = {"program": name, "plain_status": plain["status"], "checked_status": checked["status"],
           "verdict": report["verdict"] if report else "no report", "findings": [], "differences": [],
           # Which page protection watched its processes (protection keys, or mprotect where keys are missing).
           "protection": sorted({p["protection"]["backend"] for p in report["processes"] if p.get("protection")})
           if report else []}
    if unreadable:
        row["differences"].append(unreadable)
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
