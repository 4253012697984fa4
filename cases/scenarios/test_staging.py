#!/usr/bin/env python3
"""tools/deps/stage-deps and tools/deps/stage-unpacked never write over what they did not stage: an archive in the
pinned archive's place that is not it, and a file of the prefix in a package's way (a user's header of the same
name, a staged file changed by hand, a link or a folder), are refused with exit 2 and left as they are, unless
--replace is given (never for a link or a folder); every refusal comes before anything is written, the archive
included, and a prefix that is the checkout or the system's is none. No network: apt is a stand-in, one that
fails (a script that went on past a refusal fails here), or one that serves an archive and a package of a copy of
the scripts whose pin is that archive's. Runs stage-unpacked's own tests too (test_staging_unpacked.py,
test_staging_unpacked_inputs.py).

Usage: test_staging.py"""
import hashlib
import io
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_staging_unpacked import StageUnpacked, tree  # noqa: E402,F401 (StageUnpacked: run here too)
from test_staging_unpacked_inputs import StageUnpackedInputs  # noqa: E402,F401 (run here too)

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


APT_GET = """#!/bin/sh
echo "$*" >> "$STAND_IN_LOG"
[ -z "$STAND_IN_FAILS" ] || exit 1
case "$*" in
  *" update") ;;
  *" source "*) cp "$STAND_IN_ARCHIVE" . ;;
  *" download "*) cp "$STAND_IN_DEB" ./libgtest-dev.deb ;;
  *) exit 1 ;;
esac
"""
APT_CACHE = """#!/bin/sh
echo "$*" >> "$STAND_IN_LOG"
printf 'Package: libunwind\\nVersion: 9.9-1\\nChecksums-Sha256:\\n %s 20 libunwind_9.9.orig.tar.gz\\n' "$STAND_IN_SUM"
"""


class StageDepsInACopy(unittest.TestCase):
    """stage-deps in a copy of the checkout whose pin is a stand-in archive, which a stand-in apt serves with a
    package (a tar for a stand-in dpkg-deb) of one header and one library."""

    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="hazardlab-staging-"))
        self.checkout = self.tmp / "checkout"
        shutil.copytree(SOURCE / "tools" / "deps", self.checkout / "tools" / "deps")
        archive = self.tmp / "served" / "libunwind_9.9.orig.tar.gz"
        archive.parent.mkdir()
        archive.write_text("the pinned archive\n")
        sum_ = hashlib.sha256(archive.read_bytes()).hexdigest()
        (self.checkout / "cmake").mkdir()
        (self.checkout / "cmake" / "HazardlabLibunwind.cmake").write_text(
            f"set(_hl_unwind_version 9.9)\nset(_hl_unwind_sha256 {sum_})\n")
        deb = self.tmp / "served" / "package.tar"
        with tarfile.open(deb, "w") as out:
            for name, text in (("usr/include/gtest/gtest.h", b"the package's header\n"),
                               ("usr/lib/libgtest.a", b"a library\n")):
                entry = tarfile.TarInfo(name)
                entry.size = len(text)
                out.addfile(entry, io.BytesIO(text))
        (self.tmp / "sources.list").write_text("deb http://deb.invalid/debian stable main\n")
        stand_ins = self.tmp / "bin"
        stand_ins.mkdir()
        for name, text in (("apt-get", APT_GET), ("apt-cache", APT_CACHE),
                           ("apt-config", f"#!/bin/sh\necho \"system_list='{self.tmp}/sources.list'; "
                                          f"system_parts='{self.tmp}/none/'\"\n"),
                           ("dpkg-deb", '#!/bin/sh\ntar -xf "$2" -C "$3"\n')):
            (stand_ins / name).write_text(text)
            (stand_ins / name).chmod(0o755)
        self.log = self.tmp / "apt.log"
        self.env = {**os.environ, "PATH": f"{stand_ins}{os.pathsep}{os.environ['PATH']}", "STAND_IN_LOG": str(self.log),
                    "STAND_IN_ARCHIVE": str(archive), "STAND_IN_DEB": str(deb), "STAND_IN_SUM": sum_,
                    "STAND_IN_FAILS": ""}
        self.prefix = self.tmp / "deps"
        self.staged = self.prefix / "src" / archive.name

    def tearDown(self):
        subprocess.run(["rm", "-rf", str(self.tmp)])

    def stage(self, *args, fails=False, env=None):
        run = subprocess.run(["bash", str(self.checkout / "tools" / "deps" / "stage-deps"), *args], capture_output=True,
                             text=True, env={**self.env, "STAND_IN_FAILS": "1" if fails else "", **(env or {})},
                             timeout=60)
        return run.returncode, run.stdout + run.stderr

    def refused_before_apt(self, *args, says, env=None):
        before = tree(self.tmp)
        rc, out = self.stage(*args, fails=True, env=env)
        self.assertEqual(rc, 2, out)
        for text in says:
            self.assertIn(text, out)
        self.assertFalse(self.log.exists(), f"apt was asked before the refusal: {out}")
        self.assertEqual(tree(self.tmp), before)

    def test_the_archive_and_the_packages_are_staged(self):
        rc, out = self.stage("--prefix", str(self.prefix), "--with-packages")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.staged.read_text(), "the pinned archive\n")
        self.assertEqual((self.prefix / "include" / "gtest" / "gtest.h").read_text(), "the package's header\n")

    def test_a_users_file_at_a_temporary_name_is_kept(self):
        partial = self.staged.with_name(self.staged.name + ".partial")
        partial.parent.mkdir(parents=True)
        partial.write_text("my own download\n")
        rc, out = self.stage("--prefix", str(self.prefix))
        self.assertEqual(rc, 0, out)
        self.assertEqual(partial.read_text(), "my own download\n")
        self.assertEqual(sorted(p.name for p in partial.parent.iterdir()), sorted([partial.name, self.staged.name]))

    def test_a_package_in_the_way_leaves_the_archive_unstaged(self):
        header = self.prefix / "include" / "gtest" / "gtest.h"
        header.parent.mkdir(parents=True)
        header.write_text("my own header\n")
        before = tree(self.prefix)
        rc, out = self.stage("--prefix", str(self.prefix), "--with-packages")
        self.assertEqual(rc, 2, out)
        self.assertIn(str(header), out)
        self.assertEqual(tree(self.prefix), before, "staged beside the refusal")

    def test_a_link_or_a_file_where_the_archives_folder_goes_is_refused_before_apt(self):
        (self.tmp / "mine").mkdir()
        (self.tmp / "mine" / "kept.txt").write_text("the user's\n")
        self.prefix.mkdir()
        for make in (lambda p: p.symlink_to(self.tmp / "mine"), lambda p: p.write_text("a user's file\n")):
            make(self.prefix / "src")
            self.refused_before_apt("--prefix", str(self.prefix), says=(str(self.prefix / "src"),))
            (self.prefix / "src").unlink()

    def test_a_prefix_that_is_the_system_or_the_checkout_is_refused(self):
        for prefix in ("/", "/usr", str(self.checkout), str(self.tmp), str(self.checkout / "tools" / "x")):
            for packages in ((), ("--with-packages",)):
                self.refused_before_apt("--prefix", prefix, *packages, says=(f"--prefix '{prefix}'",))

    def test_an_option_given_twice_is_refused(self):
        self.refused_before_apt("--prefix", str(self.tmp / "p1"), "--prefix", str(self.tmp / "p2"),
                                says=("--prefix is given twice", "p1", "p2"))
        self.refused_before_apt("--replace", "--replace", says=("--replace is given twice",))

    def test_a_prefix_that_begins_with_a_dash_is_refused_as_a_forgotten_value(self):
        for args in (("--prefix", "--with-packages"), ("--prefix", "-foo", "--with-packages"),
                     ("--prefix=--replace", "--with-packages")):
            value = args[0].partition("=")[2] or args[1]
            self.refused_before_apt(*args, says=(f"--prefix '{value}': the value begins with '-'", f"./{value}"))

    def test_a_relative_tmpdir_reaches_apt_as_an_absolute_path(self):
        (self.tmp / "reltmp").mkdir()
        run = subprocess.run(["bash", str(self.checkout / "tools" / "deps" / "stage-deps"), "--prefix", "pfx"],
                             capture_output=True, text=True, env={**self.env, "TMPDIR": "reltmp"}, cwd=self.tmp)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn(f"Dir::Cache={self.tmp / 'reltmp'}/", self.log.read_text())

    def test_a_tmpdir_that_is_no_folder_is_refused(self):
        for tmpdir in ("", str(self.tmp / "missing")):
            self.refused_before_apt("--prefix", str(self.prefix), says=(f"TMPDIR '{tmpdir}'",), env={"TMPDIR": tmpdir})

    def test_the_default_prefix_is_named_as_the_default(self):
        (self.checkout / ".deps").write_text("a user's file\n")
        before = tree(self.tmp)
        rc, out = self.stage(fails=True)
        self.assertEqual(rc, 2, out)
        self.assertIn(f"the default prefix '{self.checkout / '.deps'}'", out)
        self.assertNotIn("--prefix", out)
        self.assertEqual(tree(self.tmp), before)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
