"""A program run under `hazardlab check`, and what its report says: the report (with the page protection asked
for checked), its findings, and a stack's functions (an inlined one named by the function its line is in)."""
import json
import os
import re
import subprocess
import sys
import tempfile


def passed_on_if_refused(rc, said):
    """hazardlab's exit 2 is bad input (a setting such as HL_CHECK_PROTECTION, an option of EXPECT_CHECK_OPTIONS):
    this driver ends with it and hazardlab's message, never a skip ("no usable GPU") or a FAIL ("no report")."""
    if rc == 2:
        print(f"{said.strip()[-2000:]}\nexpect_check.py: hazardlab refused its input (exit 2): see above",
              file=sys.stderr)
        sys.exit(2)


def gpu_count(hazardlab):
    """The GPUs this process can use, as `hazardlab devices` lists them (0 where it cannot say)."""
    out = subprocess.run([hazardlab, "devices", "--json"], capture_output=True, text=True, timeout=120)
    passed_on_if_refused(out.returncode, out.stderr)
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
            passed_on_if_refused(run.returncode, run.stderr)
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
