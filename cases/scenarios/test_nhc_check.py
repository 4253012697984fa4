#!/usr/bin/env python3
"""The NHC check (tools/health/hazardlab.nhc), run as NHC runs a check with a stand-in `die`: it keeps its health
folder as the Slurm program does, and fails, before anything is made, for a setting it cannot use or does not read."""
import os
import pathlib
import subprocess
import tempfile
import unittest

HEALTH = pathlib.Path(__file__).resolve().parents[2] / "tools" / "health"


def nhc(tmp, env_text):
    """Runs check_hazardlab as NHC runs it (a stand-in `die` that prints), with `env_text` assigned before, in an
    environment without the caller's HAZARDLAB_* settings."""
    script = (f'die() {{ echo "die $*"; }}\n. {HEALTH / "hazardlab.nhc"}\n{env_text}\ncheck_hazardlab; echo "rc=$?"')
    env = {name: value for name, value in os.environ.items() if not name.startswith("HAZARDLAB_")}
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp, env=env).stdout



class NhcCheck(unittest.TestCase):
    def test_a_last_run_log_of_someone_elses_is_never_replaced(self):
        with tempfile.TemporaryDirectory() as tmp:
            theirs = pathlib.Path(tmp, "theirs")
            theirs.mkdir()
            (theirs / "last-run.log").write_text("my log")
            out = nhc(tmp, f"HAZARDLAB_BIN=/bin/true HAZARDLAB_HEALTH_DIR={theirs}")
            self.assertIn("holds files the health check did not write (last-run.log)", out)
            self.assertIn("rc=1", out)
            self.assertEqual((theirs / "last-run.log").read_text(), "my log")
            own = pathlib.Path(tmp, "own")
            self.assertIn("rc=0", nhc(tmp, f"HAZARDLAB_BIN=/bin/true HAZARDLAB_HEALTH_DIR={own}"))
            self.assertIn("rc=0", nhc(tmp, f"HAZARDLAB_BIN=/bin/true HAZARDLAB_HEALTH_DIR={own}"))
            (own / "last-run.log").unlink()
            (own / "last-run.log").write_text("my log")
            out = nhc(tmp, f"HAZARDLAB_BIN=/bin/true HAZARDLAB_HEALTH_DIR={own}")
            self.assertIn("holds a last-run.log the health check did not write there", out)
            self.assertEqual((own / "last-run.log").read_text(), "my log")

    def test_settings_that_are_empty_relative_or_carry_a_comment_fail_the_check(self):
        with tempfile.TemporaryDirectory() as tmp:
            for assignment, said in (("HAZARDLAB_PROMETHEUS_DIR=''", "is set but empty"),
                                     ("HAZARDLAB_HEALTH_DIR=health", "is not an absolute path"),
                                     ("HAZARDLAB_HEALTH_DIR='/x #old'", "has a '#' in its value"),
                                     ("HAZARDLAB_HEALTH_DIR='/x '", "has a space at an end")):
                out = nhc(tmp, f"HAZARDLAB_BIN=/bin/true HAZARDLAB_HEALTH_DIR={tmp}/h; {assignment}")
                self.assertIn(said, out, assignment)
                self.assertIn("rc=1", out)
                self.assertFalse(pathlib.Path(tmp, "h").exists(), f"{assignment}: the check ran")

    def test_a_hazardlab_that_cannot_run_fails_before_anything_is_made(self):
        with tempfile.TemporaryDirectory() as tmp:
            plain = pathlib.Path(tmp, "plain")
            plain.write_text("not a program")
            for program, said in ((f"{tmp}/no-such", "is not an executable file"),
                                  (str(plain), "is not an executable file"), (tmp, "is not an executable file"),
                                  ("no-such-hazardlab", "was not found on PATH")):
                out = nhc(tmp, f"HAZARDLAB_BIN={program} HAZARDLAB_HEALTH_DIR={tmp}/h")
                self.assertIn(f"HAZARDLAB_BIN={program} {said}", out)
                self.assertIn("rc=1", out)
                self.assertNotIn("No such file", out)
                self.assertFalse(pathlib.Path(tmp, "h").exists(), f"{program}: the health folder was made")

    def test_a_hazardlab_variable_it_does_not_read_fails_the_check_by_name(self):
        with tempfile.TemporaryDirectory() as tmp:
            for assignment in ("HAZARDLAB_PROMETEUS_DIR=/x", "HAZARDLAB_HEALTH_TIMEOUT=abc",
                               "export HAZARDLAB_TRIALS=5"):
                out = nhc(tmp, f"HAZARDLAB_BIN=/bin/true HAZARDLAB_HEALTH_DIR={tmp}/h; {assignment}")
                name = assignment.split()[-1].split("=")[0]
                self.assertIn(f"{name} is not a setting of check_hazardlab (it reads HAZARDLAB_BIN, "
                              "HAZARDLAB_HEALTH_DIR, HAZARDLAB_PROMETHEUS_DIR)", out)
                self.assertIn("rc=1", out)
                self.assertFalse(pathlib.Path(tmp, "h").exists(), f"{assignment}: the check ran")
            out = nhc(tmp, f"HAZARDLAB_BIN=/bin/true HAZARDLAB_HEALTH_DIR={tmp}/h HAZARDLAB_PROMETHEUS_DIR={tmp}/p")
            self.assertIn(f"HAZARDLAB_PROMETHEUS_DIR='{tmp}/p' is not a folder that exists", out)
            self.assertFalse(pathlib.Path(tmp, "h").exists(), "the check ran")

    def test_the_checks_own_settings_never_reach_hazardlab(self):
        with tempfile.TemporaryDirectory() as tmp:
            program = pathlib.Path(tmp, "hazardlab")
            program.write_text("#!/bin/sh\nenv | grep '^HAZARDLAB_'\nexit 0\n")
            program.chmod(0o755)
            self.assertIn("rc=0", nhc(tmp, f"export HAZARDLAB_BIN={program} HAZARDLAB_HEALTH_DIR={tmp}/h"))
            self.assertEqual(pathlib.Path(tmp, "h", "last-run.log").read_text().count("HAZARDLAB_"), 0)

    def test_hazardlabs_own_settings_are_passed_on_and_others_fail_the_check(self):
        with tempfile.TemporaryDirectory() as tmp:
            program = pathlib.Path(tmp, "hazardlab")
            program.write_text('#!/bin/sh\n[ "$1" != settings ] || { echo "HAZARDLAB_TRIALS: trials (default 100)"; '
                               'echo "HAZARDLAB_REQUIRE_GPU: 1: no GPU fails (default 0)"; exit 0; }\n'
                               "env | grep '^HAZARDLAB_' | sort\n")
            program.chmod(0o755)
            own = f"HAZARDLAB_BIN={program} HAZARDLAB_HEALTH_DIR={tmp}/h"
            self.assertIn("rc=0", nhc(tmp, f"{own}; HAZARDLAB_TRIALS=5; export HAZARDLAB_REQUIRE_GPU=1"))
            self.assertEqual(pathlib.Path(tmp, "h", "last-run.log").read_text().splitlines()[1:],
                             ["HAZARDLAB_REQUIRE_GPU=1", "HAZARDLAB_TRIALS=5"])
            out = nhc(tmp, f"{own}; HAZARDLAB_TRIALZ=5")
            self.assertIn(f"HAZARDLAB_TRIALZ is not a setting of check_hazardlab (it reads HAZARDLAB_BIN, "
                          f"HAZARDLAB_HEALTH_DIR, HAZARDLAB_PROMETHEUS_DIR), nor one of {program}'s", out)
            self.assertIn("rc=1", out)

    def test_a_relative_hazardlab_or_a_prometheus_folder_in_the_health_folder_fails_before_anything(self):
        with tempfile.TemporaryDirectory() as tmp:
            pathlib.Path(tmp, "bin").mkdir()
            out = nhc(tmp, f"HAZARDLAB_BIN=bin/hazardlab HAZARDLAB_HEALTH_DIR={tmp}/h")
            self.assertIn("HAZARDLAB_BIN='bin/hazardlab' is a relative path", out)
            self.assertFalse(pathlib.Path(tmp, "h").exists(), "the check ran")
            for prom in ("h", "h/prom"):
                pathlib.Path(tmp, prom).mkdir()
                out = nhc(tmp, f"HAZARDLAB_BIN=/bin/true HAZARDLAB_HEALTH_DIR={tmp}/h "
                               f"HAZARDLAB_PROMETHEUS_DIR={tmp}/{prom}")
                self.assertIn("is the health folder", out)
                self.assertIn("rc=1", out)
                self.assertEqual(list(pathlib.Path(tmp, prom).iterdir()), [], "written into the health folder")

    def test_a_hard_link_to_the_last_log_keeps_what_it_held(self):
        with tempfile.TemporaryDirectory() as tmp:
            settings = f"HAZARDLAB_BIN=/bin/echo HAZARDLAB_HEALTH_DIR={tmp}/h"
            self.assertIn("rc=0", nhc(tmp, settings))
            os.link(pathlib.Path(tmp, "h", "last-run.log"), pathlib.Path(tmp, "copy.log"))
            kept = pathlib.Path(tmp, "copy.log").read_text()
            self.assertIn("rc=0", nhc(tmp, settings.replace("/bin/echo", "/bin/true")))
            self.assertEqual(pathlib.Path(tmp, "copy.log").read_text(), kept)
            self.assertNotIn("--profile", pathlib.Path(tmp, "h", "last-run.log").read_text())
            self.assertEqual(sorted(p.name for p in pathlib.Path(tmp, "h").iterdir()),
                             [".hazardlab-health", "last-run.log"], "a temporary file was left")

    def test_an_argument_fails_the_check_and_runs_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = (f'die() {{ echo "die $*"; }}\n. {HEALTH / "hazardlab.nhc"}\n'
                      f'HAZARDLAB_BIN=/bin/false HAZARDLAB_HEALTH_DIR={tmp}/h check_hazardlab --all; echo "rc=$?"')
            run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
            self.assertIn("check_hazardlab takes no arguments (given: --all)", run.stdout)
            self.assertIn("rc=1", run.stdout)
            self.assertFalse(pathlib.Path(tmp, "h").exists(), "the check ran")



if __name__ == "__main__":
    unittest.main()
