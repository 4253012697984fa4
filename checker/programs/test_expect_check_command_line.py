#!/usr/bin/env python3
"""expect_check.py's command line and settings (expect_check_command_line.py), with a stand-in for `hazardlab`: a
command line or a setting it cannot take is refused with exit 2 naming it, before the GPU probe, and hazardlab's own
refusal is passed on as such. The stand-ins serve test_expect_check.py too, which runs these tests (ctest's
check/agreement-comparison)."""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expect_check  # noqa: E402


def executable(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


# A stand-in `hazardlab`: `devices --json` lists $GPUS devices (DEVICES=refused: refuses a setting, exit 2);
# `check --help` describes hazardlab check and a few of its options; `list` names one hazard; `check --json R ...
# -- ...` does what $CHECK says (refused: the checker's refusal of a set injection variable; bad-value: a refusal of
# an option's value; a verdict: a report with that verdict and the holder $HOLDER named, if any, exit $CHECK_EXIT).
HAZARDLAB = """#!/bin/sh
if [ "$1" = devices ]; then
  [ "$DEVICES" = refused ] && { echo "hazardlab: bad setting: HL_CHECK_SAMPLE='x'" >&2; exit 2; }
  echo "{\\"devices\\": [$(seq -s, 1 "$GPUS")]}"; exit 0
fi
if [ "$1 $2" = "check --help" ]; then
  printf 'hazardlab check: the stand-in\\nOptions:\\n  -h,--help  help\\n  --json TEXT  JSON\\n'
  printf '  --sample UINT:WHOLE NUMBER 1-1000000\\n  --graph-nodes :BOOL  graphs\\n'
  printf '  --error-exitcode UINT  status\\n  --markdown TEXT  report\\n  --source-root TEXT:FOLDER  root\\n'; exit 0
fi
if [ "$1" = check ]; then  # a value hazardlab refuses before it runs the program
  case " $* " in *" --sample 0 "*) echo "hazardlab check: --sample: '0' is not allowed" >&2; exit 2 ;; esac
fi
if [ "$1" = list ]; then
  printf 'h2d-pinned-mutate: a pinned source rewritten\\n  unsafe (control)\\n'; exit 0
fi
if [ "$CHECK" = refused ]; then
  echo "hazardlab check: CUDA_INJECTION64_PATH is already set (/opt/nsight-systems/libToolsInjection64.so): another tool" >&2
  exit 2
fi
if [ "$CHECK" = bad-value ]; then
  echo "hazardlab check: --sample: '0' is not allowed" >&2; exit 2
fi
exec "{python}" -c '
import json, os, sys
held = os.environ["HOLDER"]
why = "CUPTI refused a subscriber: it is held by \\"" + held + "\\"" if held else ""
with open(sys.argv[1], "w") as f:
    json.dump({"verdict": os.environ["CHECK"], "program_end": {"code": 0},
               "processes": [{"watching": False, "not_watching_because": why, "findings": []}]}, f)
sys.exit(int(os.environ.get("CHECK_EXIT", "67")))' "$3"
""".replace("{python}", sys.executable)
NSYS = """#!/bin/sh
while [ "$1" != -- ]; do shift; done
shift
exec "$@"
"""


def run_driver(hazardlab, *argv, **env):
    """The driver in a process of its own (its settings are read when it starts), with the stand-in's variables:
    one GPU and a clean run unless `env` says otherwise."""
    env = {**os.environ, "GPUS": "1", "CHECK": "clean", "CHECK_EXIT": "0", "HOLDER": "", **env}
    for name in ("EXPECT_CHECK_OPTIONS", "HL_CHECK_PROTECTION"):
        if env.get(name) is None:
            env.pop(name, None)
    return subprocess.run([sys.executable, expect_check.__file__, hazardlab, *argv], capture_output=True, text=True,
                          timeout=60, env=env)


class CommandLine(unittest.TestCase):
    """A command line the driver cannot take is refused with exit 2, naming what is wrong, before anything runs
    (the hazardlab given to `refused` cannot run at all; `refused_by` is given the stand-in, which would run)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.hazardlab = executable(os.path.join(self.tmp.name, "hazardlab"), HAZARDLAB)

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, *argv):
        return self.refused_by("/nonexistent/hazardlab", *argv)

    def refused_by(self, hazardlab, *argv, **env):
        run = run_driver(hazardlab, *argv, **env)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertNotIn("Traceback", run.stderr)
        return run.stderr

    def test_each_slip_is_named(self):
        self.assertIn("MODE 'fuond' is not one of found", self.refused("fuond", "--", "/bin/true"))
        self.assertIn("argument --needs-gpus: 'two' is not allowed", self.refused("clean", "--needs-gpus", "two",
                                                                                   "--", "/bin/true"))
        self.assertIn("needs the program after --", self.refused("clean"))
        self.assertIn("needs the program after --", self.refused("found", "--hazard", "h2d-pinned-mutate"))
        self.assertIn("--because TEXT", self.refused("not-checked", "--", "/bin/true"))
        self.assertIn("argument --hazard: given twice", self.refused("found", "--hazard", "a", "--hazard", "b", "--",
                                                                     "/bin/true"))
        self.assertIn("unrecognized arguments: --hazrd", self.refused("found", "--hazrd", "a", "--", "/bin/true"))
        self.assertIn("agreement takes 3 operand(s)", self.refused("agreement", "runner", "1000"))

    def test_help_describes_the_modes(self):
        run = run_driver("--help")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("expect_check.py HAZARDLAB found|clean|clean-any-exit", run.stdout)

    def test_hazardlab_must_be_hazardlab(self):
        self.assertIn("HAZARDLAB '/nonexistent/hazardlab' is not a runnable file", self.refused("clean", "--", "true"))
        self.assertIn(f"HAZARDLAB '{self.tmp.name}' is not a runnable file",
                      self.refused_by(self.tmp.name, "clean", "--", "true"))
        self.assertIn("HAZARDLAB '/bin/echo' is not hazardlab", self.refused_by("/bin/echo", "clean", "--", "true"))

    def test_the_program_and_the_operands_are_checked_before_the_gpu(self):
        hl = self.hazardlab
        self.assertIn("the program '/nonexistent/prog' is not a runnable file",
                      self.refused_by(hl, "clean", "--", "/nonexistent/prog"))
        self.assertIn("the program 'no-such-program-here' is not found on PATH",
                      self.refused_by(hl, "clean", "--", "no-such-program-here"))
        self.assertIn("CASES '/nonexistent/cases' is not a runnable file",
                      self.refused_by(hl, "suite", "/nonexistent/cases", "h2d-pinned-mutate"))
        self.assertIn("HAZARD 'no-such-hazard' is not a hazard",
                      self.refused_by(hl, "suite", "/bin/true", "no-such-hazard"))
        self.assertIn("RUNNER '/nonexistent/runner'", self.refused_by(hl, "agreement", "/nonexistent/runner", "9", "1"))
        self.assertIn("PROGRAMS 'many' is not allowed", self.refused_by(hl, "agreement", "/bin/true", "many", "1"))
        self.assertIn("SEED 'notaseed' is not allowed", self.refused_by(hl, "agreement", "/bin/true", "9", "notaseed"))

    def test_a_blank_option_or_one_the_mode_does_not_read(self):
        hl = self.hazardlab
        self.assertIn("--hazard was given ''", self.refused_by(hl, "found", "--hazard", "", "--", "true"))
        self.assertIn("--copy-in 'unsafe' is read by found only; clean would ignore it",
                      self.refused_by(hl, "clean", "--copy-in", "unsafe", "--", "true"))
        self.assertIn("--needs-python-module '' is not a module name",
                      self.refused_by(hl, "clean", "--needs-python-module", "", "--", "true"))

    def test_a_module_name_is_never_run_as_code(self):
        mark = os.path.join(self.tmp.name, "ran")
        said = self.refused_by(self.hazardlab, "clean", "--needs-python-module", f"os; open({mark!r}, 'w')", "--",
                               "true")
        self.assertIn("is not a module name", said)
        self.assertFalse(os.path.exists(mark))
        run = run_driver(self.hazardlab, "clean", "--needs-python-module", "json.decoder", "--", "true")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        run = run_driver(self.hazardlab, "clean", "--needs-python-module", "no_such_module_here", "--", "true")
        self.assertEqual((run.returncode, "Python cannot import no_such_module_here" in run.stdout), (77, True))


class Settings(unittest.TestCase):
    """EXPECT_CHECK_OPTIONS and HL_CHECK_PROTECTION checked before the GPU probe, and hazardlab's own refusal of
    bad input (exit 2) passed on as exit 2 with its message: never a skip or "wrote no report"."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.hazardlab = executable(os.path.join(self.tmp.name, "hazardlab"), HAZARDLAB)

    def tearDown(self):
        self.tmp.cleanup()

    def said(self, rc, **env):
        run = run_driver(self.hazardlab, "clean", "--", "true", **env)
        self.assertEqual(run.returncode, rc, run.stdout + run.stderr)
        self.assertNotIn("Traceback", run.stderr)
        return run.stdout + run.stderr

    def test_settings_are_checked_first(self):
        self.assertIn("HL_CHECK_PROTECTION='bogus'", self.said(2, HL_CHECK_PROTECTION="bogus", GPUS="0"))
        self.assertIn("'--smaple' is not an option of hazardlab check",
                      self.said(2, EXPECT_CHECK_OPTIONS="--smaple 5", GPUS="0"))
        self.assertIn("'--sample' needs a value", self.said(2, EXPECT_CHECK_OPTIONS="--sample"))
        self.assertIn("is blank", self.said(2, EXPECT_CHECK_OPTIONS=" "))
        self.said(0, EXPECT_CHECK_OPTIONS="--graph-nodes --sample=5")
        self.said(0, HL_CHECK_PROTECTION="mprotect")

    def test_option_values_are_judged_by_hazardlab_before_the_gpu_probe(self):
        self.assertIn("is refused by hazardlab check: hazardlab check: --sample: '0' is not allowed",
                      self.said(2, EXPECT_CHECK_OPTIONS="--sample 0", GPUS="0"))
        # Options whose effect this driver cannot honour: its verdicts are hazardlab's statuses, its report its own.
        self.assertIn("--error-exitcode is not passed on", self.said(2, EXPECT_CHECK_OPTIONS="--error-exitcode 1"))
        self.assertIn("--markdown is not passed on", self.said(2, EXPECT_CHECK_OPTIONS="--markdown=true"))
        # hazardlab would ask for --sarif beside it, which this driver refuses: its own reason, not hazardlab's.
        self.assertIn("--source-root is not passed on: it sets the folder SARIF's paths are relative to",
                      self.said(2, EXPECT_CHECK_OPTIONS="--source-root /x"))

    def test_a_hazard_that_hazardlab_does_not_list_is_refused_before_the_run(self):
        run = run_driver(self.hazardlab, "found", "--hazard", "h2d-pinned-mutat", "--", "true", GPUS="0")
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn("--hazard 'h2d-pinned-mutat' is not a hazard `hazardlab list` names", run.stderr)

    def test_hazardlabs_refusal_is_passed_on(self):
        self.assertIn("--sample: '0' is not allowed", self.said(2, CHECK="bad-value"))
        self.assertIn("HL_CHECK_SAMPLE='x'", self.said(2, DEVICES="refused"))


if __name__ == "__main__":
    unittest.main()
