#!/usr/bin/env python3
"""tools/deps/stage-unpacked never writes over what it did not stage: a file of the prefix in a package's way (a
user's header of the same name, a staged file changed by hand, a link or a folder) is refused with exit 2 and left
as it is, unless --replace is given (never for a link or a folder); a user's file at any name beside its places is
kept, and a list of staged files it did not write, whole or in a line, is refused. test_staging.py runs these
beside stage-deps's.

Usage: test_staging_unpacked.py"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = pathlib.Path(__file__).resolve().parents[2]
STAGE_UNPACKED = SOURCE / "tools" / "deps" / "stage-unpacked"


def scripts_another_user_can_run(folder):
    """stage-unpacked and the checks it sources, copied where another user can read them (a checkout may lie in a
    folder only its owner can enter): the tests that stage as nobody run this copy."""
    copy = pathlib.Path(folder) / "scripts"
    copy.mkdir()
    for name in ("stage-unpacked", "staging-checks.sh"):
        shutil.copy2(STAGE_UNPACKED.parent / name, copy / name)
    return copy / "stage-unpacked"


def tree(top):
    """Every entry under `top`: path -> (kind, content or link target)."""
    out = {}
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                out[path] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                out[path] = ("folder", None)
            else:
                out[path] = ("file", pathlib.Path(path).read_bytes())
    return out


class StageUnpacked(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="hazardlab-staging-"))
        self.unpacked = self.tmp / "unpacked" / "usr"
        (self.unpacked / "include" / "gtest").mkdir(parents=True)
        (self.unpacked / "lib").mkdir()
        (self.unpacked / "include" / "gtest" / "gtest.h").write_text("the package's header\n")
        (self.unpacked / "lib" / "libgtest.a").write_text("the package's library\n")
        (self.unpacked / "lib" / "libgtest.so").symlink_to("libgtest.a")
        self.prefix = self.tmp / "prefix"
        self.header = self.prefix / "include" / "gtest" / "gtest.h"

    def tearDown(self):
        subprocess.run(["rm", "-rf", str(self.tmp)])

    def stage(self, *args):
        run = subprocess.run(["bash", str(STAGE_UNPACKED), *args, str(self.unpacked), str(self.prefix)],
                             capture_output=True, text=True, timeout=60)
        return run.returncode, run.stdout + run.stderr

    def test_a_users_header_of_the_same_name_is_refused_and_kept(self):
        self.header.parent.mkdir(parents=True)
        self.header.write_text("my own header\n")
        before = tree(self.prefix)
        rc, out = self.stage()
        self.assertEqual(rc, 2, out)
        self.assertIn(str(self.header), out)
        self.assertEqual(tree(self.prefix), before, "something was staged beside the refusal")

    def test_what_it_staged_is_staged_again_and_a_changed_file_is_refused(self):
        rc, out = self.stage()
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.header.read_text(), "the package's header\n")
        self.assertEqual(os.readlink(self.prefix / "lib" / "libgtest.so"), "libgtest.a")
        (self.unpacked / "include" / "gtest" / "gtest.h").write_text("the package's newer header\n")
        rc, out = self.stage()
        self.assertEqual(rc, 0, f"a file it staged, unchanged, is its own to replace: {out}")
        self.assertEqual(self.header.read_text(), "the package's newer header\n")
        self.header.write_text("edited by hand\n")
        rc, out = self.stage()
        self.assertEqual(rc, 2, out)
        self.assertEqual(self.header.read_text(), "edited by hand\n")
        rc, out = self.stage("--replace")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.header.read_text(), "the package's newer header\n")

    def test_the_same_content_is_no_conflict(self):
        self.header.parent.mkdir(parents=True)
        self.header.write_text("the package's header\n")
        rc, out = self.stage()
        self.assertEqual(rc, 0, out)

    def test_a_list_of_its_own_name_that_it_did_not_write_is_kept(self):
        self.prefix.mkdir()
        (self.prefix / ".stage-deps-files").write_text("my notes\n")
        rc, out = self.stage("--replace")
        self.assertEqual(rc, 2, out)
        self.assertEqual((self.prefix / ".stage-deps-files").read_text(), "my notes\n")
        self.assertFalse((self.prefix / "include").exists())

    def test_a_link_or_file_on_the_way_to_a_file_is_never_followed(self):
        elsewhere = self.tmp / "elsewhere"
        elsewhere.mkdir()
        self.prefix.mkdir()
        (self.prefix / "include").symlink_to(elsewhere)
        (self.prefix / "lib").write_text("a file where a folder goes\n")
        before = tree(self.tmp)
        rc, out = self.stage("--replace")
        self.assertEqual(rc, 2, out)
        self.assertEqual(tree(self.tmp), before, "the copy went through a link, or beside a refusal")

    def test_a_link_or_folder_in_the_way_is_never_replaced(self):
        self.header.parent.mkdir(parents=True)
        self.header.symlink_to("/etc/hostname")
        (self.prefix / "lib" / "libgtest.a").mkdir(parents=True)
        before = tree(self.prefix)
        rc, out = self.stage("--replace")
        self.assertEqual(rc, 2, out)
        self.assertEqual(tree(self.prefix), before)

    def test_a_users_files_at_its_temporary_names_are_kept(self):
        partial_header = self.header.with_name("gtest.h.stage-partial")
        partial_header.parent.mkdir(parents=True)
        partial_header.write_text("my own notes\n")
        (self.prefix / ".stage-deps-files.partial").write_text("my own list\n")
        rc, out = self.stage()
        self.assertEqual(rc, 0, out)
        self.assertEqual(partial_header.read_text(), "my own notes\n")
        self.assertEqual((self.prefix / ".stage-deps-files.partial").read_text(), "my own list\n")
        self.assertEqual(self.header.read_text(), "the package's header\n")
        left = sorted(p.name for p in self.prefix.rglob(".*") if p.name != ".stage-deps-files")
        self.assertEqual(left, [".stage-deps-files.partial"], "a temporary file was left behind")

    def test_a_list_with_a_line_it_never_writes_is_refused_naming_the_line(self):
        rc, out = self.stage()
        self.assertEqual(rc, 0, out)
        listing = self.prefix / ".stage-deps-files"
        good = listing.read_text()
        first = good.splitlines()[1]
        for bad, named in ((good + "garbage\n", "line 4: 'garbage'"),
                           (good + "zzz include/not/staged.h\n", "'zzz include/not/staged.h'"),
                           (good + "0" * 64 + " ../outside.h\n", "../outside.h"),
                           (good + first + "\n", "listed twice")):
            listing.write_text(bad)
            before = tree(self.tmp)
            rc, out = self.stage()
            self.assertEqual(rc, 2, out)
            self.assertIn(named, out)
            self.assertEqual(tree(self.tmp), before, "staged beside a refusal")

    def test_a_link_on_the_way_is_said_once_and_called_a_link(self):
        for n in range(30):
            (self.unpacked / "include" / "gtest" / f"extra{n}.h").write_text(f"header {n}\n")
        elsewhere = self.tmp / "elsewhere"
        elsewhere.mkdir()
        self.prefix.mkdir()
        (self.prefix / "include").symlink_to(elsewhere)
        rc, out = self.stage()
        self.assertEqual(rc, 2, out)
        self.assertEqual(out.count(str(self.prefix / "include")), 1, out)
        self.assertIn("a link where a folder goes", out)
        self.assertNotIn("files in", out)

    def test_a_folder_it_cannot_write_in_is_refused_before_anything_is_written(self):
        # As root every folder can be written: the staging runs as nobody then.
        as_user = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        if as_user and not shutil.which("runuser"):
            self.skipTest("root, and no runuser to stage as another user")
        (self.prefix / "include").mkdir(parents=True)
        (self.prefix / "lib").mkdir()
        for path in [self.tmp, *self.tmp.rglob("*")]:
            if not path.is_symlink():
                path.chmod(0o777)
        (self.prefix / "include").chmod(0o555)
        script = scripts_another_user_can_run(self.tmp)
        before = tree(self.tmp)
        run = subprocess.run([*as_user, "bash", str(script), str(self.unpacked), str(self.prefix)],
                             capture_output=True, text=True, timeout=60, cwd=self.tmp)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn(f"{self.prefix / 'include'} (a folder this user cannot write in)", run.stderr)
        self.assertNotIn("mkdir", run.stderr)
        self.assertEqual(tree(self.tmp), before)

    def test_the_systems_root_is_no_prefix(self):
        for prefix in ("/", "//", "/usr"):
            run = subprocess.run(["bash", str(STAGE_UNPACKED), "--check", str(self.unpacked), prefix],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn("the system's own folders", run.stderr)
            self.assertEqual(run.stderr.count("\n"), 1, run.stderr)

    def test_check_writes_nothing(self):
        rc, out = self.stage("--check")
        self.assertEqual(rc, 0, out)
        self.assertFalse(self.prefix.exists())

    def test_bad_arguments_are_refused(self):
        for args in (["--bogus", "a", "b"], ["only-one"], [str(self.tmp / "missing"), str(self.prefix)],
                     ["--replace", "--replace", str(self.unpacked), str(self.prefix)],
                     [str(self.unpacked), str(self.tmp / "unpacked" / "usr" / "lib" / "libgtest.a" / "sub")]):
            run = subprocess.run(["bash", str(STAGE_UNPACKED), *args], capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn("stage-unpacked:", run.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
