#!/usr/bin/env python3
"""tools/deps/stage-unpacked's operands and list, judged before anything is written: a PREFIX that is its own input
(UNPACKED_USR, a folder inside it, or one holding it), a file name its list of staged files could not hold, a list
with a path in another spelling or with Windows line ends are refused with exit 2, and paths that begin with '-' are
paths, with --check judging what the staging does. test_staging.py runs these beside stage-deps's.

Usage: test_staging_unpacked_inputs.py"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_staging_unpacked import STAGE_UNPACKED, scripts_another_user_can_run, tree  # noqa: E402


class StageUnpackedInputs(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="hazardlab-staging-"))
        self.unpacked = self.tmp / "unpacked" / "usr"
        (self.unpacked / "include" / "t").mkdir(parents=True)
        (self.unpacked / "include" / "t" / "t.h").write_text("the package's header\n")
        self.prefix = self.tmp / "prefix"

    def tearDown(self):
        subprocess.run(["rm", "-rf", str(self.tmp)])

    def stage(self, *args, unpacked=None, prefix=None):
        run = subprocess.run(["bash", str(STAGE_UNPACKED), *args, str(unpacked or self.unpacked),
                              str(prefix or self.prefix)], capture_output=True, text=True, timeout=60, cwd=self.tmp)
        return run.returncode, run.stdout + run.stderr

    def refused(self, *args, says, unpacked=None, prefix=None):
        before = tree(self.tmp)
        for check in ((), ("--check",)):
            rc, out = self.stage(*check, *args, unpacked=unpacked, prefix=prefix)
            self.assertEqual(rc, 2, out)
            self.assertIn(says, out)
            self.assertEqual(tree(self.tmp), before, "written beside a refusal")

    def test_operands_that_begin_with_a_dash_are_paths(self):
        (self.tmp / "unpacked").rename(self.tmp / "-unpacked")
        for check in (("--check",), ()):
            rc, out = self.stage(*check, "--", unpacked="-unpacked/usr", prefix="-pfx")
            self.assertEqual(rc, 0, out)
        self.assertEqual((self.tmp / "-pfx" / "include" / "t" / "t.h").read_text(), "the package's header\n")

    def test_a_prefix_that_is_its_input_inside_it_or_holding_it_is_refused(self):
        self.refused(prefix=self.unpacked, says="is UNPACKED_USR")
        self.refused(prefix=self.unpacked / "include" / "t", says="is UNPACKED_USR")
        self.refused(prefix=self.tmp / "unpacked", says="holds UNPACKED_USR")

    def test_a_name_with_a_newline_is_refused_before_anything_is_staged(self):
        (self.unpacked / "include" / "t" / "a\nb.h").write_text("odd\n")
        self.refused(says="a name with a control character")

    def test_a_name_with_a_backslash_is_listed_with_its_sum_and_staged_again(self):
        (self.unpacked / "include" / "t" / "a\\b.h").write_text("odd but allowed\n")
        for _ in range(2):
            rc, out = self.stage()
            self.assertEqual(rc, 0, out)
        self.assertIn(" include/t/a\\b.h\n", (self.prefix / ".stage-deps-files").read_text())

    def test_a_list_with_a_path_in_another_spelling_or_windows_line_ends_is_refused(self):
        rc, out = self.stage()
        self.assertEqual(rc, 0, out)
        listing = self.prefix / ".stage-deps-files"
        good = listing.read_text()
        line = good.splitlines()[1]
        for bad, says in ((good + line.replace(" ", " ./", 1) + "\n", "./include/t/t.h"),
                          (good + line.replace("/", "//", 1) + "\n", "include//t/t.h"),
                          (good.replace("\n", "\r\n"), "carriage return")):
            listing.write_bytes(bad.encode())
            self.refused(says=says)

    def test_a_file_of_the_input_this_user_cannot_read_is_refused_before_anything(self):
        # As root everything can be read: the staging runs as nobody then.
        as_user = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        if as_user and not shutil.which("runuser"):
            self.skipTest("root, and no runuser to stage as another user")
        for path in [self.tmp, *self.tmp.rglob("*")]:
            path.chmod(0o777)
        (self.unpacked / "include" / "t").chmod(0o700)
        script = scripts_another_user_can_run(self.tmp)
        before = tree(self.tmp)
        run = subprocess.run([*as_user, "bash", str(script), str(self.unpacked), str(self.prefix)],
                             capture_output=True, text=True, timeout=60, cwd=self.tmp)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("holds what this user cannot read: include/t", run.stderr)
        self.assertEqual(tree(self.tmp), before)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
