#!/usr/bin/env python3
"""The corpus harness on the CPU: every bad input is an error naming it, exit 2, before anything is built or run
(so the same with or without a GPU); masking keeps what a program computed and hides what it timed."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "check_corpus.py")
sys.path.insert(0, HERE)
import check_corpus  # noqa: E402


def harness(*args):
    return subprocess.run([sys.executable, SCRIPT, "--hazardlab", "/bin/true", "--work", WORK] + list(args),
                          capture_output=True, text=True)


class BadInput(unittest.TestCase):
    def setUp(self):
        global WORK
        self.tmp = tempfile.TemporaryDirectory()
        WORK = os.path.join(self.tmp.name, "work")
        self.samples = os.path.join(self.tmp.name, "cuda-samples")
        os.makedirs(os.path.join(self.samples, "Samples", "0_Introduction", "vectorAdd"))
        with open(os.path.join(self.samples, "Samples", "0_Introduction", "vectorAdd", "CMakeLists.txt"), "w") as f:
            f.write("add_executable(vectorAdd vectorAdd.cu)\n")

    def tearDown(self):
        self.tmp.cleanup()

    def expect_refused(self, run, *words):
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        for w in words:
            self.assertIn(w, run.stderr)
        self.assertFalse(os.path.exists(os.path.join(WORK, "cuda-samples-build")), "something was built")

    def expectations(self, programs, kind="cuda-samples"):
        path = os.path.join(self.tmp.name, "expectations.json")
        with open(path, "w") as f:
            json.dump({"schema": "hazardlab.corpus-expectations", "schema_version": 1,
                       "corpora": {kind: {"programs": programs}}}, f)
        return path

    def test_a_missing_corpus_path_is_named(self):
        self.expect_refused(harness("--corpus", "cuda-samples=/nonexistent/samples"), "/nonexistent/samples",
                            "does not exist")

    def test_an_unknown_corpus_kind_is_named_with_the_kinds_allowed(self):
        self.expect_refused(harness("--corpus", f"samples={self.samples}"), "samples=", "cuda-samples, pytest")

    def test_no_corpus_at_all_is_refused(self):
        self.expect_refused(harness(), "no --corpus")

    def test_a_corpus_without_a_program_is_refused(self):
        empty = os.path.join(self.tmp.name, "empty")
        os.makedirs(os.path.join(empty, "Samples"))
        self.expect_refused(harness("--corpus", f"cuda-samples={empty}"), empty, "no sample found")
        self.expect_refused(harness("--corpus", f"pytest={empty}"), empty, "no test_*.py")
        self.expect_refused(harness("--corpus", f"cuda-samples={self.tmp.name}"), "no Samples folder")

    def test_expectations_naming_a_program_that_is_not_there_are_refused(self):
        path = self.expectations({"simpleNothing": {"exclude": "gone"}})
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path),
                            "simpleNothing", "is not in")

    def test_an_expected_finding_must_say_why_and_where(self):
        path = self.expectations({"vectorAdd": {"findings": [{"hazard": "h2d-pinned-mutate", "why": "a reason"}]}})
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path),
                            "vectorAdd", "'lines'")

    def test_an_unreadable_or_foreign_expectations_file_is_named(self):
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", "/nonexistent.json"),
                            "/nonexistent.json", "cannot be read")
        other = os.path.join(self.tmp.name, "other.json")
        with open(other, "w") as f:
            json.dump({"schema": "something-else"}, f)
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", other),
                            "something-else")

    def test_out_of_range_numbers_are_refused(self):
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--jobs", "0"), "--jobs 0")
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--timeout", "0"), "--timeout 0")

    def test_a_corpus_not_given_here_is_a_skip_not_a_pass(self):
        run = harness("--corpus", "cuda-samples=", "--corpus", "pytest=")
        self.assertEqual(run.returncode, 77, run.stdout + run.stderr)
        self.assertIn("nothing run", run.stdout)

    def test_the_shipped_expectations_are_valid(self):
        check_corpus.load_expectations(os.path.join(HERE, "expectations.json"))


class Masking(unittest.TestCase):
    def test_times_rates_and_addresses_are_masked_and_results_are_not(self):
        masks = [re.compile(m) for m in check_corpus.DEFAULT_MASKS]
        out = check_corpus.masked("Result = PASS\nTime = 1.25 msec\nBandwidth 54.1 GB/s\nptr 0x7f00deadbeef\n"
                                  "sum = 4096\n", masks)
        self.assertEqual(out, ["Result = PASS", "<masked>", "<masked>", "<masked>", "sum = 4096"])


if __name__ == "__main__":
    unittest.main()
