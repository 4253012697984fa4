#!/usr/bin/env python3
"""driver_options.py, the Python drivers' one reader of their command lines: each type refuses what it must (exit 2,
naming the option, the value and what is allowed) and takes what it must."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from driver_options import (DriverParser, hazardlab_program, input_file, listed, output_file,  # noqa: E402
                            runnable_file, seconds, whole_number, work_folder, write_output)


def parser():
    p = DriverParser(prog="driver.py")
    p.add_argument("--n", type=whole_number(1, 10), default=2)
    p.add_argument("--s", type=seconds(0.5, 60, zero_means="none"), default=0)
    p.add_argument("--items", type=listed(("a", "b", "c")))
    p.add_argument("--sizes", type=listed((4096, 65536), int))
    p.add_argument("--json", type=output_file)
    p.add_argument("--markdown", type=output_file)
    p.add_argument("--input", type=input_file)
    p.add_argument("--many", action="append", default=[])
    return p


class DriverOptions(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.folder = self.tmp.name
        self.file = os.path.join(self.folder, "notes.txt")
        with open(self.file, "w") as f:
            f.write("mine\n")

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, *argv):
        err = io.StringIO()
        with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
            p = parser()
            p.refuse_outputs_not_ours(p.parse(list(argv), outputs=("--json", "--markdown"), inputs=("--input",)))
        self.assertEqual(e.exception.code, 2, err.getvalue())
        return err.getvalue()

    def test_numbers_are_decimal_and_within_their_range(self):
        self.assertEqual(parser().parse(["--n", "010"]).n, 10)
        for bad in ("0", "11", "-1", "+3", "3.0", " 3", "0x3", ""):
            self.assertIn(f"argument --n: '{bad}' is not allowed; expected a whole number from 1 to 10",
                          self.refused("--n", bad))
        self.assertEqual(parser().parse(["--s", "0"]).s, 0)
        self.assertEqual(parser().parse(["--s", "1.5"]).s, 1.5)
        self.assertIn("argument --s", self.refused("--s", "-inf"))  # argparse: an option's look, still refused
        for bad in ("nan", "inf", "0.1", "61", "x"):
            self.assertIn(f"argument --s: '{bad}' is not allowed; expected a number of seconds from 0.5 to 60, or 0",
                          self.refused("--s", bad))

    def test_numbers_are_ascii_decimals_and_a_long_one_is_shown_cut_with_the_range(self):
        # Arabic-Indic digits, 4096 to str.isdigit() and int()
        self.assertIn("('٤٠٩٦' is not)", self.refused("--sizes", "٤٠٩٦"))
        self.assertIn("'１' is not allowed", self.refused("--n", "１"))  # a full-width 1
        for bad in ("1_0", "1e1", " 2", "0x1"):
            self.assertIn(f"argument --s: '{bad}' is not allowed", self.refused("--s", bad))
        said = self.refused("--n", "9" * 5000)  # past int()'s 4300 digits
        self.assertIn(f"'{'9' * 40}...' (5000 characters) is not allowed; expected a whole number from 1 to 10", said)
        self.assertLess(len(said), 400)
        self.assertEqual(parser().parse(["--n", "0" * 5000 + "7"]).n, 7)

    def test_a_list_names_each_allowed_item_once(self):
        self.assertEqual(parser().parse(["--items", "c,a"]).items, ["c", "a"])
        self.assertEqual(parser().parse(["--sizes", "65536,04096"]).sizes, [65536, 4096])
        self.assertIn("'a' is given twice", self.refused("--items", "a,b,a"))
        self.assertIn("'4096' is given twice", self.refused("--sizes", "4096,4096"))
        self.assertIn("each item one of a, b, c ('d' is not)", self.refused("--items", "a,d"))
        self.assertIn("with no empty item", self.refused("--items", "a,"))
        self.assertIn("with no empty item", self.refused("--items", ""))
        self.assertIn("('+4096' is not)", self.refused("--sizes", "+4096"))

    def test_an_option_is_given_once_unless_it_collects(self):
        self.assertIn("argument --n: given twice", self.refused("--n", "1", "--n", "2"))
        self.assertEqual(parser().parse(["--many", "a", "--many", "b"]).many, ["a", "b"])

    def test_files_to_write_are_checked_before_any_work(self):
        self.assertIn("it is a folder", self.refused("--json", self.folder))
        self.assertIn("in a folder that exists", self.refused("--json", os.path.join(self.folder, "no", "x.json")))
        self.assertIn("not a blank", self.refused("--json", " "))
        out = os.path.join(self.folder, "out.json")
        self.assertIn("is the same file as --json", self.refused("--json", out, "--markdown", out))
        ours = self.driver_output()
        self.assertIn("is the same file as --input", self.refused("--input", ours, "--json", ours))
        # A user's file is never written over, nor a link (its target would be); a driver's own output may be again.
        self.assertIn("is a file these drivers did not write", self.refused("--json", self.file))
        link = os.path.join(self.folder, "link.json")
        os.symlink(ours, link)
        self.assertIn("is a link", self.refused("--json", link))
        self.assertEqual(parser().parse(["--json", ours]).json, ours)
        with open(self.file) as f:
            self.assertEqual(f.read(), "mine\n")
        # A pipe would hang the write after the work (no one reads it), a device would swallow it.
        fifo = os.path.join(self.folder, "pipe")
        os.mkfifo(fifo)
        for path in (fifo, "/dev/null"):
            self.assertIn("it is not a plain file", self.refused("--json", path))

    def test_two_names_of_one_file_are_one_file(self):
        ours = self.driver_output()
        linked = os.path.join(self.folder, "linked.json")
        os.link(ours, linked)
        self.assertIn("is the same file as --input", self.refused("--input", ours, "--json", linked))
        self.assertIn("is the same file as --json", self.refused("--json", ours, "--markdown", linked))

    def driver_output(self):
        """A file these drivers wrote (overhead_benchmark's figures), which they may write again."""
        path = os.path.join(self.folder, "figures.json")
        with open(path, "w") as f:
            f.write('[{"workload": "copy", "variant": "4096", "config": "plain", "unit": "us"}]')
        return path

    @unittest.skipUnless(os.path.isdir("/proc/self"), "needs /proc, a folder that takes no new file")
    def test_a_folder_that_takes_no_new_file_is_refused_before_any_work(self):
        self.assertIn("a file in a folder that takes new files; /proc does not", self.refused("--json", "/proc/x.json"))
        with self.assertRaisesRegex(Exception, "takes new folders; /proc does not"):
            work_folder("/proc/x")

    def test_the_hazardlab_program_is_hazardlab(self):
        standin = os.path.join(self.folder, "hazardlab")
        with open(standin, "w") as f:
            f.write('#!/bin/sh\ntest "$1 $2" = "check --help" && echo "hazardlab check: runs PROGRAM"\n')
        os.chmod(standin, 0o755)
        self.assertEqual(hazardlab_program(standin), standin)
        for other in ("/bin/true", sys.executable):
            with self.assertRaisesRegex(Exception, "does not describe hazardlab check"):
                hazardlab_program(other)
        with self.assertRaisesRegex(Exception, "a runnable file"):
            hazardlab_program(self.file)

    def test_files_to_read_and_programs_exist(self):
        self.assertIn("a file that exists; it is a folder", self.refused("--input", self.folder))
        fifo = os.path.join(self.folder, "pipe")
        os.mkfifo(fifo)
        for path in (fifo, "/dev/zero"):  # a pipe may never end, a device never does
            self.assertIn("a file that exists; it is not a plain file", self.refused("--input", path))
        with self.assertRaises(Exception):
            runnable_file(self.file)  # not executable
        self.assertEqual(runnable_file(sys.executable), sys.executable)
        with self.assertRaises(Exception):
            work_folder(self.file)
        self.assertEqual(work_folder(os.path.join(self.folder, "new")), os.path.join(self.folder, "new"))
        self.assertEqual(input_file(self.file), self.file)

    def test_a_failed_write_names_the_file_and_returns_false(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertFalse(write_output("--json", os.path.join(self.folder, "gone", "x.json"), "{}"))
        self.assertIn("could not write --json", err.getvalue())
        self.assertTrue(write_output("--json", os.path.join(self.folder, "x.json"), "{}"))

    def test_a_link_or_a_users_file_made_while_the_work_ran_is_left_as_it_is(self):
        out = os.path.join(self.folder, "out.json")  # new when the command line was read
        os.symlink(self.file, out)  # then the program run made it a link to the user's file
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertFalse(write_output("--json", out, "[]"))
            os.remove(out)
            with open(out, "w") as f:
                f.write("made by the program\n")
            self.assertFalse(write_output("--json", out, "[]"))
        self.assertIn("did not write --json", err.getvalue())
        with open(self.file) as f:
            self.assertEqual(f.read(), "mine\n")
        with open(out) as f:
            self.assertEqual(f.read(), "made by the program\n")
        self.assertEqual(sorted(os.listdir(self.folder)), ["notes.txt", "out.json"])  # no temporary left


if __name__ == "__main__":
    unittest.main()
