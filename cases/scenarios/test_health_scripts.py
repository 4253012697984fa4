#!/usr/bin/env python3
"""The node health scripts (Slurm's HealthCheckProgram and NHC's check) with a stand-in scontrol and a stand-in
hazardlab: a node is drained only for a reason that names the cause, and never by a slip such as `--help`."""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

HEALTH = pathlib.Path(__file__).resolve().parents[2] / "tools" / "health"
FLEET_JOB = pathlib.Path(__file__).resolve().parents[2] / "tools" / "slurm" / "hazardlab-fleet.sbatch"


class Node:
    """A stand-in node: scontrol logs what it was asked; hazardlab prints `said` and exits `status`."""

    def __init__(self, tmp, said="hazardlab: PASS: 1 GPU", status=0):
        self.tmp = pathlib.Path(tmp)
        self.log = self.tmp / "scontrol.log"
        scontrol = self.tmp / "scontrol"
        scontrol.write_text(f'#!/bin/sh\necho "$*" >> {self.log}\n')
        scontrol.chmod(0o755)
        self.hazardlab = self.tmp / "hazardlab"
        self.hazardlab.write_text(f"#!/bin/sh\nprintf '%s\\n' '{said}'\nexit {status}\n")
        self.hazardlab.chmod(0o755)
        self.env = {"PATH": os.environ["PATH"], "SCONTROL": str(scontrol), "SLURMD_NODENAME": "n1",
                    "HAZARDLAB_HEALTH_CONFIG": str(self.config(""))}

    def config(self, text, name="health.conf"):
        path = self.tmp / name
        path.write_text(f"HAZARDLAB_BIN={self.hazardlab}\nHAZARDLAB_HEALTH_DIR={self.tmp / 'health'}\n" + text)
        return path

    def config_with(self, text, name="health-other.conf"):
        """A config of its own lines: the hazardlab to run, then `text`."""
        path = self.tmp / name
        path.write_text(f"HAZARDLAB_BIN={self.hazardlab}\n" + text)
        return path

    def check(self, *args, config=None):
        env = dict(self.env)
        if config is not None:
            env["HAZARDLAB_HEALTH_CONFIG"] = str(config)
        run = subprocess.run(["bash", str(HEALTH / "hazardlab-health-check"), *args], env=env, capture_output=True,
                             text=True, timeout=60)
        return run.returncode, run.stdout + run.stderr, self.log.read_text() if self.log.exists() else ""


class HealthCheckProgram(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_any_argument_prints_usage_and_touches_nothing(self):
        node = Node(self.tmp.name, said="hazardlab: gpu0 FAIL: x", status=1)
        for args in (["--help"], ["-h"], ["now"]):
            rc, out, scontrol = node.check(*args)
            self.assertEqual(rc, 2, out)
            self.assertIn("takes no arguments", out)
            self.assertIn("HealthCheckProgram", out)
            self.assertEqual(scontrol, "", "the node was touched")
            self.assertFalse((pathlib.Path(self.tmp.name) / "health").exists(), "the check ran")

    def test_a_failing_node_is_drained_with_the_verdict(self):
        node = Node(self.tmp.name, said="hazardlab: gpu0 (0000:41:00.0) FAIL: h2d", status=1)
        rc, out, scontrol = node.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("State=DRAIN Reason=hazardlab: gpu0 (0000:41:00.0) FAIL: h2d", scontrol)

    def test_a_config_file_that_does_not_exist_drains_naming_it(self):
        node = Node(self.tmp.name)
        rc, out, scontrol = node.check(config=pathlib.Path(self.tmp.name) / "missing.conf")
        self.assertEqual(rc, 1, out)
        self.assertIn("missing.conf cannot be read", scontrol)

    def test_a_config_variable_set_but_empty_drains_naming_it(self):
        node = Node(self.tmp.name)
        rc, out, scontrol = node.check(config="")
        self.assertEqual(rc, 1, out)
        self.assertIn("HAZARDLAB_HEALTH_CONFIG is set but empty", scontrol)
        self.assertFalse((pathlib.Path(self.tmp.name) / "health").exists(), "the check ran")

    def test_a_setting_the_script_does_not_read_is_refused_by_name(self):
        node = Node(self.tmp.name)
        rc, out, scontrol = node.check(config=node.config("HAZARDLAB_HEALTH_TIMOUT=30\n"))
        self.assertEqual(rc, 1, out)
        self.assertIn("'HAZARDLAB_HEALTH_TIMOUT=30' is not a setting", scontrol)

    def test_a_timeout_of_zero_or_junk_never_turns_the_hang_limit_off(self):
        node = Node(self.tmp.name)
        for value in ("0", "abc", "-5", "99999", ""):
            rc, out, scontrol = node.check(config=node.config(f"HAZARDLAB_HEALTH_TIMEOUT={value}\n"))
            self.assertEqual(rc, 1, out)
            self.assertIn(f"HAZARDLAB_HEALTH_TIMEOUT='{value}'" if value else "the value is empty", scontrol)

    def test_a_missing_hazardlab_drains_naming_it(self):
        node = Node(self.tmp.name)
        config = node.tmp / "no-bin.conf"
        config.write_text(f"HAZARDLAB_BIN=/no/such/hazardlab\nHAZARDLAB_HEALTH_DIR={node.tmp / 'health'}\n")
        rc, out, scontrol = node.check(config=config)
        self.assertEqual(rc, 1, out)
        self.assertIn("HAZARDLAB_BIN=/no/such/hazardlab was not found", scontrol)

    def test_a_failed_metrics_write_after_a_pass_is_the_reason_not_the_pass(self):
        said = "hazardlab: PASS: 1 GPU'; echo 'hazardlab-report: cannot write /prom/hazardlab.prom: No space"
        node = Node(self.tmp.name, said=said, status=1)
        rc, out, scontrol = node.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("cannot write /prom/hazardlab.prom", scontrol)
        self.assertNotIn("Reason=hazardlab: PASS", scontrol)

    def test_a_config_that_is_a_folder_drains_naming_it(self):
        node = Node(self.tmp.name)
        folder = pathlib.Path(self.tmp.name) / "config-folder"
        folder.mkdir()
        rc, out, scontrol = node.check(config=folder)
        self.assertEqual(rc, 1, out)
        self.assertIn("config-folder is not a file", scontrol)

    def test_a_config_line_is_read_never_run(self):
        node = Node(self.tmp.name)
        injected = pathlib.Path(self.tmp.name) / "INJECTED"
        rc, out, scontrol = node.check(config=node.config(f"HAZARDLAB_PROMETHEUS_DIR=/x; touch {injected}\n"))
        self.assertEqual(rc, 1, out)
        self.assertFalse(injected.exists(), "a line of the config was run")
        self.assertIn("a value is a path or a number, not a command", scontrol)

    def test_windows_line_ends_are_named(self):
        node = Node(self.tmp.name)
        path = pathlib.Path(self.tmp.name) / "crlf.conf"
        path.write_bytes(f"HAZARDLAB_BIN={node.hazardlab}\r\n".encode())
        rc, out, scontrol = node.check(config=path)
        self.assertEqual(rc, 1, out)
        self.assertIn("carriage return", scontrol)

    def test_a_health_folder_of_someone_elses_files_is_never_written_into(self):
        node = Node(self.tmp.name)
        mine = pathlib.Path(self.tmp.name) / "mine"
        mine.mkdir()
        (mine / "notes.txt").write_text("mine")
        (mine / "last-run.log").write_text("my log")
        config = node.config("")
        config.write_text(f"HAZARDLAB_BIN={node.hazardlab}\nHAZARDLAB_HEALTH_DIR={mine}\n")
        rc, out, scontrol = node.check(config=config)
        self.assertEqual(rc, 1, out)
        self.assertIn("holds files the health check did not write (last-run.log notes.txt)", scontrol)
        self.assertEqual((mine / "last-run.log").read_text(), "my log")
        self.assertEqual(sorted(p.name for p in mine.iterdir()), ["last-run.log", "notes.txt"])

    def test_a_last_run_log_of_someone_elses_is_never_replaced(self):
        # The names the check writes are no proof that it wrote them: a folder of results/, reports/ and a
        # last-run.log that are not the check's own is not written into.
        node = Node(self.tmp.name)
        theirs = pathlib.Path(self.tmp.name) / "theirs"
        for sub in ("results", "reports"):
            (theirs / sub).mkdir(parents=True)
        (theirs / "last-run.log").write_text("my log")
        rc, out, scontrol = node.check(config=node.config_with(f"HAZARDLAB_HEALTH_DIR={theirs}\n"))
        self.assertEqual(rc, 1, out)
        self.assertIn("holds files the health check did not write", scontrol)
        self.assertEqual((theirs / "last-run.log").read_text(), "my log")
        self.assertEqual(sorted(p.name for p in theirs.iterdir()), ["last-run.log", "reports", "results"])
        # In the check's own folder too: a last-run.log put there by someone else is left as it is.
        rc, out, scontrol = node.check()
        self.assertEqual(rc, 0, out)
        own = pathlib.Path(self.tmp.name) / "health"
        (own / "last-run.log").unlink()
        (own / "last-run.log").write_text("my log")
        rc, out, scontrol = node.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("holds a last-run.log the health check did not write there", scontrol)
        self.assertEqual((own / "last-run.log").read_text(), "my log")

    def test_its_own_folder_is_written_again_and_a_copy_of_it_is_not(self):
        node = Node(self.tmp.name, said="hazardlab: gpu0 FAIL: x", status=1)
        for _ in range(2):
            rc, out, scontrol = node.check()
            self.assertEqual(rc, 1, out)
            self.assertIn("Reason=hazardlab: gpu0 FAIL: x", scontrol)
        copy = pathlib.Path(self.tmp.name) / "copy"
        subprocess.run(["cp", "-a", str(pathlib.Path(self.tmp.name) / "health"), str(copy)], check=True)
        log = (copy / "last-run.log").read_text()
        rc, out, scontrol = node.check(config=node.config_with(f"HAZARDLAB_HEALTH_DIR={copy}\n"))
        self.assertIn("was not made for this folder", scontrol)
        self.assertEqual((copy / "last-run.log").read_text(), log)

    def test_config_lines_are_read_strictly(self):
        node = Node(self.tmp.name)
        prom = pathlib.Path(self.tmp.name) / "prom"
        cases = {
            f"HAZARDLAB_PROMETHEUS_DIR={prom} # the collector's folder\n": "a '#' in a value",
            f"HAZARDLAB_PROMETHEUS_DIR={prom}#old\n": "a '#' in a value",
            f"HAZARDLAB_PROMETHEUS_DIR={prom} \n": "a space in a value that is not quoted",
            f'HAZARDLAB_PROMETHEUS_DIR="{prom} "\n': "a space at an end of the value",
            f'HAZARDLAB_PROMETHEUS_DIR="{prom}\n': "an unmatched quote",
            f"HAZARDLAB_PROMETHEUS_DIR='{prom}\"'\n": "a quote inside a quoted value",
            "HAZARDLAB_PROMETHEUS_DIR=\n": "the value is empty",
            "HAZARDLAB_PROMETHEUS_DIR=''\n": "the value is empty",
            "HAZARDLAB_PROMETHEUS_DIR=prom\n": "expected an absolute path",
            f"HAZARDLAB_HEALTH_DIR={self.tmp.name}/other\n": "HAZARDLAB_HEALTH_DIR is given twice",
            "HAZARDLAB_HEALTH_TIMEOUT=55\tx\n": "a space in a value that is not quoted",
        }
        for line, said in cases.items():
            rc, out, scontrol = node.check(config=node.config(line))
            self.assertEqual(rc, 1, f"{line!r}: {out}")
            self.assertIn(said, scontrol, line)
            self.assertFalse((pathlib.Path(self.tmp.name) / "health").exists(), f"{line!r}: the check ran")
        # Documented as allowed: comment lines, blank lines, one pair of quotes around a whole value.
        rc, out, scontrol = node.check(config=node.config(f"# a comment\n\n  # another\nHAZARDLAB_HEALTH_TIMEOUT='55'\n"))
        self.assertEqual(rc, 0, out)

    def test_a_healthy_node_is_left_as_it_is(self):
        node = Node(self.tmp.name)
        rc, out, scontrol = node.check()
        self.assertEqual(rc, 0, out)
        self.assertNotIn("DRAIN", scontrol)


def nhc(tmp, env_text):
    """Runs check_hazardlab as NHC runs it (a stand-in `die` that prints), with `env_text` assigned before."""
    script = (f'die() {{ echo "die $*"; }}\n. {HEALTH / "hazardlab.nhc"}\n{env_text}\ncheck_hazardlab; echo "rc=$?"')
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp).stdout


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

    def test_an_argument_fails_the_check_and_runs_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = (f'die() {{ echo "die $*"; }}\n. {HEALTH / "hazardlab.nhc"}\n'
                      f'HAZARDLAB_BIN=/bin/false HAZARDLAB_HEALTH_DIR={tmp}/h check_hazardlab --all; echo "rc=$?"')
            run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
            self.assertIn("check_hazardlab takes no arguments (given: --all)", run.stdout)
            self.assertIn("rc=1", run.stdout)
            self.assertFalse(pathlib.Path(tmp, "h").exists(), "the check ran")


class FleetJob(unittest.TestCase):
    """The fleet job script with a stand-in srun (it runs the node's command once, as node n1)."""

    def job(self, tmp, *args, job_id="7"):
        srun = pathlib.Path(tmp, "srun")
        srun.write_text('#!/bin/sh\nwhile [ "${1#--}" != "$1" ]; do shift; done\nSLURMD_NODENAME=n1 exec "$@"\n')
        srun.chmod(0o755)
        env = {"PATH": f"{tmp}:{os.environ['PATH']}", "SLURM_JOB_ID": job_id, "HAZARDLAB_BIN": "/bin/true"}
        return subprocess.run(["bash", str(FLEET_JOB), *args], env=env, capture_output=True, text=True, timeout=60)

    def test_a_job_folder_that_exists_is_never_written_into(self):
        with tempfile.TemporaryDirectory() as tmp:
            shared = pathlib.Path(tmp, "shared")
            (shared / "7" / "nodes" / "n1").mkdir(parents=True)
            (shared / "7" / "nodes" / "n1" / "run.log").write_text("my log")
            run = self.job(tmp, str(shared))
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn("exists already", run.stderr)
            self.assertEqual((shared / "7" / "nodes" / "n1" / "run.log").read_text(), "my log")
            self.assertEqual([p.name for p in (shared / "7" / "nodes" / "n1").iterdir()], ["run.log"])
            run = self.job(tmp, str(shared), job_id="8")
            self.assertTrue((shared / "8" / "nodes" / "n1" / "run.log").exists(), run.stderr)

    def test_anything_but_one_folder_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            for args in ([], ["a", "b"], [""]):
                run = self.job(tmp, *args)
                self.assertEqual(run.returncode, 2, f"{args}: {run.stderr}")
                self.assertIn("usage: sbatch", run.stderr)
            self.assertEqual(sorted(p.name for p in pathlib.Path(tmp).iterdir()), ["srun"])


if __name__ == "__main__":
    unittest.main()
