#!/usr/bin/env python3
"""tools/deps/stage-deps and tools/deps/stage-unpacked never write over what they did not stage: an archive in the
pinned archive's place that is not it, and a file of the prefix in a package's way (a user's header of the same
name, a staged file changed by hand, a link or a folder), are refused with exit 2 and left as they are, unless
--replace is given (never for a link or a folder). No network: apt is a stand-in that fails, so that a script that
went on past a refusal fails here.

Usage: test_staging.py"""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

SOURCE = pathlib.Path(__file__).resolve().parents[2]
STAGE_DEPS = SOURCE / "tools" / "deps" / "stage-deps"
STAGE_UNPACKED = SOURCE / "tools" / "deps" / "stage-unpacked"


def pinned_archive_name():
    module = (SOURCE / "cmake" / "HazardlabLibunwind.cmake").read_text()
    version = next(line.split()[1].rstrip(")") for line in module.splitlines()
                   if line.startswith("set(_hl_unwind_version "))
    return f"libunwind_{version}.orig.tar.gz"


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

    def test_bad_arguments_are_refused(self):
        for args in (["--bogus", "a", "b"], ["only-one"], [str(self.tmp / "missing"), str(self.prefix)]):
            run = subprocess.run(["bash", str(STAGE_UNPACKED), *args], capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn("stage-unpacked:", run.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
