#!/usr/bin/env python3
"""The node health scripts (Slurm's HealthCheckProgram and NHC's check) with a stand-in scontrol and a stand-in
hazardlab: a node is drained only for a reason that names the cause, and never by a slip such as `--help`. This file
holds the Slurm program's own tests and runs those of its settings (test_health_config.py), of the NHC check
(test_nhc_check.py) and of the fleet job script (test_fleet_job_script.py) too."""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from health_standins import Node  # noqa: E402
# One run of this file runs every health script's tests, kept by idea in modules of their own.
from test_health_config import HealthConfig  # noqa: E402,F401
from test_nhc_check import NhcCheck  # noqa: E402,F401
from test_fleet_job_script import FleetJob  # noqa: E402,F401


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

    def test_a_drain_that_fails_says_what_it_was_and_how_it_failed(self):
        node = Node(self.tmp.name, said="hazardlab: gpu0 FAIL: x", status=1)
        rc, out, _ = node.check(env_too={"SCONTROL": "false"})
        self.assertEqual(rc, 2, out)
        self.assertIn("could not drain node n1: false exited 1; the reason was: hazardlab: gpu0 FAIL: x", out)

    def test_scontrol_or_the_node_name_set_but_empty_touches_nothing(self):
        node = Node(self.tmp.name)
        for name in ("SCONTROL", "SLURMD_NODENAME"):
            rc, out, scontrol = node.check(env_too={name: ""})
            self.assertEqual(rc, 2, out)
            self.assertIn(f"{name} is set but empty", out)
            self.assertEqual(scontrol, "", "the node was touched")
            self.assertFalse((node.tmp / "health").exists(), "the check ran")

    def test_an_scontrol_that_cannot_run_touches_nothing(self):
        node = Node(self.tmp.name)
        for scontrol in ("no-such-scontrol", str(node.tmp / "no-such-scontrol"), str(node.tmp)):
            rc, out, _ = node.check(env_too={"SCONTROL": scontrol})
            self.assertEqual(rc, 2, out)
            self.assertIn(f"SCONTROL='{scontrol}' is not a command that can be run", out)
            self.assertNotIn("command not found", out)
            self.assertFalse((node.tmp / "health").exists(), "the check ran")

    def test_a_failing_scontrol_show_on_a_passing_node_is_said(self):
        node = Node(self.tmp.name)
        failing = node.tmp / "failing-scontrol"
        failing.write_text('#!/bin/sh\necho "slurm_load_node error: Unable to contact slurm controller" >&2\nexit 1\n')
        failing.chmod(0o755)
        rc, out, _ = node.check(env_too={"SCONTROL": str(failing)})
        self.assertEqual(rc, 2, out)
        self.assertIn("node n1 passed, but", out)
        self.assertIn("show node failed (exited 1): slurm_load_node error", out)

    def test_a_hard_link_to_the_last_log_keeps_what_it_held(self):
        node = Node(self.tmp.name)
        self.assertEqual(node.check()[0], 0)
        copy = node.tmp / "my-copy.log"
        os.link(node.tmp / "health" / "last-run.log", copy)
        kept = copy.read_text()
        node.hazardlab.write_text("#!/bin/sh\necho 'hazardlab: PASS: 2 GPUs'\n")
        self.assertEqual(node.check()[0], 0)
        self.assertEqual(copy.read_text(), kept)
        self.assertIn("2 GPUs", (node.tmp / "health" / "last-run.log").read_text())
        self.assertEqual(sorted(p.name for p in (node.tmp / "health").iterdir()),
                         [".hazardlab-health", "last-run.log"], "a temporary file was left")

    def test_the_checks_own_settings_never_reach_hazardlab(self):
        # Passed on, they would make hazardlab warn of names it does not know, so its own warnings would mean nothing.
        node = Node(self.tmp.name)
        node.hazardlab.write_text("#!/bin/sh\nenv | grep '^HAZARDLAB_'\necho 'hazardlab: PASS: 1 GPU'\n")
        (node.tmp / "prom").mkdir()
        config = node.config(f"HAZARDLAB_HEALTH_TIMEOUT=55\nHAZARDLAB_PROMETHEUS_DIR={node.tmp / 'prom'}\n")
        rc, out, _ = node.check(config=config, env_too={"HAZARDLAB_BIN": str(node.hazardlab)})
        self.assertEqual(rc, 0, out)
        self.assertEqual((node.tmp / "health" / "last-run.log").read_text().splitlines()[1:], ["hazardlab: PASS: 1 GPU"])

    def test_a_healthy_node_is_left_as_it_is(self):
        node = Node(self.tmp.name)
        rc, out, scontrol = node.check()
        self.assertEqual(rc, 0, out)
        self.assertNotIn("DRAIN", scontrol)


if __name__ == "__main__":
    unittest.main()
