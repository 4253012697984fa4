#!/usr/bin/env python3
"""tools/deps/stage-deps and tools/deps/stage-unpacked never write over what they did not stage: an archive in the
pinned archive's place that is not it, and a file of the prefix in a package's way (a user's header of the same
name, a staged file changed by hand, a link or a folder), are refused with exit 2 and left as they are, unless
--replace is given (never for a link or a folder). No network: apt is a stand-in that fails, so that a script that
went on past a refusal fails here. Runs stage-unpacked's own tests too (test_staging_unpacked.py).

Usage: test_staging.py"""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_staging_unpacked import StageUnpacked, tree  # noqa: E402,F401 (StageUnpacked: run here too)

SOURCE = pathlib.Path(__file__).resolve().parents[2]
STAGE_DEPS = SOURCE / "tools" / "deps" / "stage-deps"


def pinned_archive_name():
    module = (SOURCE / "cmake" / "HazardlabLibunwind.cmake").read_text()
    version = next(line.split()[1].rstrip(")") for line in module.splitlines()
                   if line.startswith("set(_hl_unwind_version "))
    return f"libunwind_{version}.orig.tar.gz"


class StageDeps(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="hazardlab-staging-"))
        stand_ins = self.tmp / "bin"
        stand_ins.mkdir()
        for name in ("apt-get", "apt-cache", "apt-config"):
            (stand_ins / name).write_text("#!/bin/sh\necho \"stand-in $0 $*\" >&2\nexit 1\n")
            (stand_ins / name).chmod(0o755)
        self.env = {**os.environ, "PATH": f"{stand_ins}{os.pathsep}{os.environ['PATH']}"}
        self.prefix = self.tmp / "deps"
        (self.prefix / "src").mkdir(parents=True)
        self.archive = self.prefix / "src" / pinned_archive_name()

    def tearDown(self):
        subprocess.run(["rm", "-rf", str(self.tmp)])

    def stage(self, *args):
        run = subprocess.run(["bash", str(STAGE_DEPS), "--prefix", str(self.prefix), *args], capture_output=True,
                             text=True, env=self.env, timeout=60)
        return run.returncode, run.stdout + run.stderr

    def test_an_archive_that_is_not_the_pinned_one_is_refused_and_kept(self):
        self.archive.write_text("my own archive\n")
        before = tree(self.tmp)
        for args in ((), ("--with-packages",)):
            rc, out = self.stage(*args)
            self.assertEqual(rc, 2, out)
            self.assertIn(str(self.archive), out)
            self.assertIn("--replace", out)
            self.assertNotIn("stand-in", out, "apt was asked after the refusal")
            self.assertEqual(tree(self.tmp), before)

    def test_replace_is_asked_for_by_name(self):
        self.archive.write_text("my own archive\n")
        rc, out = self.stage("--replace")
        self.assertEqual(rc, 1, out)  # it goes on to apt, which the stand-in refuses
        self.assertIn("replacing", out)

    def test_a_folder_or_a_link_in_the_archives_place_is_refused_even_with_replace(self):
        for make in (lambda p: p.mkdir(), lambda p: p.symlink_to("elsewhere")):
            make(self.archive)
            before = tree(self.tmp)
            rc, out = self.stage("--replace")
            self.assertEqual(rc, 2, out)
            self.assertIn("not a file", out)
            self.assertEqual(tree(self.tmp), before)
            subprocess.run(["rm", "-rf", str(self.archive)])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
