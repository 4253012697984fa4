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

    def test_a_job_id_that_is_not_one_plain_name_is_refused_before_anything(self):
        with tempfile.TemporaryDirectory() as tmp:
            shared = pathlib.Path(tmp, "shared")
            for job_id, said in ((None, "SLURM_JOB_ID is not set"), ("", "SLURM_JOB_ID='' is not a job id"),
                                 ("../escaped", "SLURM_JOB_ID='../escaped' is not a job id"),
                                 ("7/8", "SLURM_JOB_ID='7/8' is not a job id"), ("..", "is not a job id")):
                run = self.job(tmp, str(shared), env_too={"SLURM_JOB_ID": job_id})
                self.assertEqual(run.returncode, 2, f"{job_id!r}: {run.stderr}")
                self.assertIn(said, run.stderr)
                self.assertEqual(sorted(p.name for p in pathlib.Path(tmp).iterdir()), ["srun"], f"{job_id!r}")

    def test_a_shared_folder_that_is_a_file_is_refused_and_kept(self):
        with tempfile.TemporaryDirectory() as tmp:
            mine = pathlib.Path(tmp, "notes.txt")
            mine.write_text("mine")
            run = self.job(tmp, str(mine))
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn(f"the shared folder {mine} is not a folder", run.stderr)
            self.assertNotIn("mkdir", run.stderr)
            self.assertEqual(mine.read_text(), "mine")

    def test_a_hazardlab_that_cannot_run_is_named_as_it_is(self):
        with tempfile.TemporaryDirectory() as tmp:
            plain = pathlib.Path(tmp, "plain")
            plain.write_text("not a program")
            for program, said in ((str(plain), f"HAZARDLAB_BIN={plain}: not an executable file"),
                                  ("", "HAZARDLAB_BIN is set but empty"),
                                  (f"{tmp}/no-such", f"HAZARDLAB_BIN={tmp}/no-such: not found")):
                run = self.job(tmp, f"{tmp}/shared", env_too={"HAZARDLAB_BIN": program})
                self.assertEqual(run.returncode, 2, f"{program!r}: {run.stderr}")
                self.assertIn(said, run.stderr)
                self.assertFalse(pathlib.Path(tmp, "shared").exists(), f"{program!r}: the job folder was made")

    def test_a_node_name_that_is_not_one_plain_name_writes_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            for job_id, node in (("1", "../../nodeesc"), ("2", ""), ("3", "..")):
                run = self.job(tmp, f"{tmp}/shared", job_id=job_id, node=node)
                self.assertIn(f"the node name '{node}' (SLURMD_NODENAME, or the host name) is not one name",
                              run.stderr)
                self.assertEqual(run.returncode, 1, run.stderr)
                self.assertEqual(list(pathlib.Path(tmp, "shared", job_id, "nodes").iterdir()), [], node)
            self.assertEqual(sorted(p.name for p in pathlib.Path(tmp).iterdir()), ["shared", "srun"])
            self.assertEqual(sorted(p.name for p in pathlib.Path(tmp, "shared").iterdir()), ["1", "2", "3"])

    def test_the_jobs_own_variables_never_reach_hazardlab(self):
        with tempfile.TemporaryDirectory() as tmp:
            program = pathlib.Path(tmp, "hazardlab")
            program.write_text("#!/bin/sh\nenv | grep '^HAZARDLAB_'\nexit 0\n")
            program.chmod(0o755)
            self.job(tmp, f"{tmp}/shared", env_too={"HAZARDLAB_BIN": str(program)})
            self.assertEqual(pathlib.Path(tmp, "shared", "7", "nodes", "n1", "run.log").read_text(),
                             "HAZARDLAB_HOST_NAME=n1\n")

    def test_a_bad_hazardlab_setting_is_refused_once_before_the_job_folder(self):
        with tempfile.TemporaryDirectory() as tmp:
            # As hazardlab judges its settings (`hazardlab settings`): a bad value, an empty one, and (strict) a
            # name it does not know, the job's own HAZARDLAB_BIN among them, are refused with exit 2.
            program = pathlib.Path(tmp, "hazardlab")
            program.write_text(
                '#!/bin/sh\n'
                '[ "$1" = settings ] || { echo "hazardlab: PASS"; exit 0; }\n'
                'case "${HAZARDLAB_REQUIRE_GPU-0}" in 0|1) ;; *) echo "hazardlab: bad setting: '
                'HAZARDLAB_REQUIRE_GPU=\'$HAZARDLAB_REQUIRE_GPU\'" >&2; exit 2 ;; esac\n'
                'for name in $(env | sed -n "s/^\\(HAZARDLAB_[A-Z_]*\\)=.*/\\1/p"); do\n'
                '  case $name in HAZARDLAB_REQUIRE_GPU|HAZARDLAB_STRICT|HAZARDLAB_TRIALS) ;;\n'
                '  *) [ "$HAZARDLAB_STRICT" = 1 ] && { echo "hazardlab: bad setting: $name is not a hazardlab '
                'setting" >&2; exit 2; } ;; esac\n'
                'done\n')
            program.chmod(0o755)
            for setting, said in ((("HAZARDLAB_REQUIRE_GPU", "maybe"), "HAZARDLAB_REQUIRE_GPU='maybe'"),
                                  (("HAZARDLAB_REQUIRE_GPU", ""), "HAZARDLAB_REQUIRE_GPU=''"),
                                  (("HAZARDLAB_TRAILS", "5"), "HAZARDLAB_TRAILS is not a hazardlab setting")):
                run = self.job(tmp, f"{tmp}/shared", env_too={"HAZARDLAB_BIN": str(program), setting[0]: setting[1]})
                self.assertEqual(run.returncode, 2, f"{setting}: {run.stderr}")
                self.assertIn(said, run.stderr)
                self.assertFalse(pathlib.Path(tmp, "shared").exists(), f"{setting}: the job folder was made")
            run = self.job(tmp, f"{tmp}/shared", env_too={"HAZARDLAB_BIN": str(program), "HAZARDLAB_TRIALS": "5"})
            self.assertNotIn("setting", run.stderr)  # good settings: the nodes run (the stand-in leaves no run)
            self.assertEqual(pathlib.Path(tmp, "shared", "7", "nodes", "n1", "run.log").read_text(), "hazardlab: PASS\n")

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
