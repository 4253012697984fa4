#!/usr/bin/env python3
"""The fleet job script (tools/slurm/hazardlab-fleet.sbatch) with a stand-in srun: it writes only into a new job
folder in the shared folder, and refuses, before any node runs, what would take it elsewhere."""
import os
import pathlib
import subprocess
import tempfile
import unittest

FLEET_JOB = pathlib.Path(__file__).resolve().parents[2] / "tools" / "slurm" / "hazardlab-fleet.sbatch"


class FleetJob(unittest.TestCase):
    """The fleet job script with a stand-in srun (it runs the node's command once, as node n1)."""

    def job(self, tmp, *args, job_id="7", node="n1", env_too=None):
        """Runs the job; `env_too` changes its environment (None takes a variable out)."""
        srun = pathlib.Path(tmp, "srun")
        srun.write_text(f'#!/bin/sh\nwhile [ "${{1#--}}" != "$1" ]; do shift; done\nSLURMD_NODENAME="{node}" exec "$@"\n')
        srun.chmod(0o755)
        env = {"PATH": f"{tmp}:{os.environ['PATH']}", "SLURM_JOB_ID": job_id, "HAZARDLAB_BIN": "/bin/true"}
        for name, value in (env_too or {}).items():
            if value is None:
                env.pop(name)
            else:
                env[name] = value
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
