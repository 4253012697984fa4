#!/usr/bin/env python3
"""The agreement test's comparison on the CPU, on played reports: an exact prediction is met only by its
finding, or by the same copy reported first inside a host function that the model allows to come first; a
prediction missed otherwise, or a finding nobody predicted, fails. The suite mode on played runs: a variant the
case runner skips (exit 77) is skipped, the whole hazard when every variant is, and a control the checker missed
fails beside skipped ones. And the driver's skips and its Nsight Systems expectation, with stand-ins for `hazardlab`
and `nsys`: fewer GPUs than a test needs is a skip, never a pass; under nsys the checker must say what holds CUDA's
injection or CUPTI, naming it; and its command line (test_expect_check_command_line.py)."""
import contextlib
import io
import os
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agreement_comparison  # noqa: E402
import expect_check  # noqa: E402

# Program 0: a host function (#1) queued before a memset (#2) of the buffer it writes may run after the memset
# was issued; the main thread writes the buffer at #5, which conflicts with the memset whatever the timing.
EXPECTED = {
    "programs": 1,
    "copies": [{"id": 7, "program": 0, "command": 2}],
    "expected": [
        {"program": 0, "access": 5, "copy": 2, "copy_id": 7, "offset": 5, "relies_on": [],
         "timing_dependent": False, "in_host_function": False, "or_offsets": []},
        {"program": 0, "access": 1, "copy": 2, "copy_id": 7, "offset": 1, "relies_on": [],
         "timing_dependent": True, "in_host_function": True, "or_offsets": [5]},
    ],
}


def report(*offsets):
    found = [{"finding": {"copy": {"id": 7}, "offset": o, "relies_on": []}} for o in offsets]
    return {"program_end": {"code": 0}, "verdict": "found" if found else "clean",
            "processes": [{"findings": found}]}


def problems(rep, expected=EXPECTED):
    # The comparison insists on enough predictions to compare; these played programs are deliberately few.
    return [p for p in agreement_comparison.compare_agreement(rep, expected, "runner")[0] if not p.startswith("too few")]


def race(address, earlier, later):
    def work(w):
        return {"stream": w[0], "work": w[1], "access": w[2]}
    return {"finding": {"copy": {"id": 0}, "offset": 0, "relies_on": [], "address": address,
                        "race": {"earlier": work(earlier), "later": work(later)}}}


DEVICE = {"buffers": [{"program": 0, "buffer": 2, "begin": 4096, "end": 8192}],
          "races": [{"program": 0, "earlier": 3, "later": 5, "buffer": 2, "earlier_stream": 0, "later_stream": 9,
                     "earlier_work": "kernel", "later_work": "copy", "earlier_access": "write",
                     "later_access": "read", "clearable": False}]}


class DeviceRaces(unittest.TestCase):
    def test_the_predicted_race_agrees(self):
        found = [race(4096, (0, "kernel", "write"), (9, "copy", "read"))]
        self.assertEqual(agreement_comparison.compare_device_races(found, DEVICE, "runner")[0], [])

    def test_a_race_the_model_does_not_leave_is_refused(self):
        found = [race(4096, (0, "kernel", "write"), (9, "copy", "read")),
                 race(4100, (9, "copy", "read"), (0, "kernel", "write"))]
        problems = agreement_comparison.compare_device_races(found, DEVICE, "runner")[0]
        self.assertEqual(len(problems), 1)
        self.assertIn("reported, not predicted", problems[0])

    def test_the_first_race_must_be_reported_unless_a_host_function_may_order_it(self):
        self.assertIn("not reported", agreement_comparison.compare_device_races([], DEVICE, "runner")[0][0])
        clearable = {"buffers": DEVICE["buffers"], "races": [dict(DEVICE["races"][0], clearable=True)]}
        self.assertEqual(agreement_comparison.compare_device_races([], clearable, "runner")[0], [])


class Agreement(unittest.TestCase):
    def test_the_predicted_finding_agrees(self):
        self.assertEqual(problems(report(5)), [])

    def test_the_copy_reported_first_inside_the_host_function_agrees(self):
        self.assertEqual(problems(report(1)), [])
        self.assertIn("1 reported first inside a host function", agreement_comparison.compare_agreement(report(1), EXPECTED,
                                                                                                "runner")[1])

    def test_a_missed_prediction_fails(self):
        self.assertTrue(any(p.startswith("not reported") for p in problems(report())))

    def test_a_host_function_that_cannot_come_first_does_not_excuse_a_miss(self):
        expected = {**EXPECTED, "expected": [EXPECTED["expected"][0], {**EXPECTED["expected"][1], "or_offsets": []}]}
        self.assertTrue(any(p.startswith("not reported") for p in problems(report(1), expected)))

    def test_a_finding_nobody_predicted_fails(self):
        self.assertTrue(any(p.startswith("reported, not predicted") for p in problems(report(5, 3))))



class Suite(unittest.TestCase):
    """suite() with `hazardlab list` and `hazardlab check` played: each variant's run ends with the exit status
    and the verdict given here."""

    def play(self, runs):
        listed, checked = expect_check.variants, expect_check.check
        expect_check.variants = lambda hazardlab, hazard: [(name, kind) for name, kind, _, _ in runs]
        by_variant = {name: (code, verdict) for name, _, code, verdict in runs}

        def check(hazardlab, command, env=None, output=None):
            code, verdict = by_variant[command[command.index("--variant") + 1]]
            rc = 66 if verdict == "found" else code
            return rc, {"verdict": verdict, "program_end": {"code": code}, "processes": [{"findings": []}]}
        expect_check.check = check
        try:
            return expect_check.suite("hazardlab", "cases", "peer-copy-read-before-landed")
        finally:
            expect_check.variants, expect_check.check = listed, checked

    def test_every_variant_skipped_skips_the_hazard(self):
        self.assertIsNone(self.play([("unsafe", "control", 77, "clean"), ("guarded", "guard", 77, "clean")]))

    def test_a_control_found_and_a_guard_clean_pass(self):
        self.assertTrue(self.play([("unsafe", "control", 0, "found"), ("guarded", "guard", 0, "clean"),
                                   ("window", "observation", 0, "clean")]))

    def test_a_missed_control_fails_beside_a_skipped_one(self):
        self.assertFalse(self.play([("unsafe", "control", 0, "clean"), ("other", "control", 77, "clean")]))

    def test_a_found_guard_fails_even_when_it_exits_77(self):
        self.assertFalse(self.play([("guarded", "guard", 77, "found")]))

# The driver's command line and settings, run here too (ctest runs this file); and its stand-ins for hazardlab.
from test_expect_check_command_line import HAZARDLAB, NSYS, CommandLine, Settings, executable  # noqa: E402,F401


class Driver(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.hazardlab = executable(os.path.join(self.tmp.name, "hazardlab"), HAZARDLAB)
        self.bin = os.path.join(self.tmp.name, "bin")
        os.mkdir(self.bin)

    def tearDown(self):
        self.tmp.cleanup()

    def main(self, *args, gpus=1, check="clean", holder="", nsys=True):
        if nsys and not os.path.exists(os.path.join(self.bin, "nsys")):
            executable(os.path.join(self.bin, "nsys"), NSYS)
        env = {"GPUS": str(gpus), "CHECK": check, "HOLDER": holder, "PATH": self.bin + os.pathsep + "/usr/bin:/bin"}
        out = io.StringIO()
        with mock.patch.dict(os.environ, env), mock.patch.object(sys, "argv", ["expect_check.py", self.hazardlab] +
                                                                  list(args)), contextlib.redirect_stdout(out):
            return expect_check.main(), out.getvalue()

    def test_fewer_gpus_than_needed_is_a_skip(self):
        rc, said = self.main("clean", "--needs-gpus", "2", "--", "/bin/true", gpus=1)
        self.assertEqual(rc, 77, said)
        self.assertIn("1 usable GPU(s), 2 needed", said)
        self.assertEqual(self.main("clean", "--needs-gpus", "2", "--", "/bin/true", gpus=0)[0], 77)

    def test_under_nsys_a_refusal_naming_the_injection_passes(self):
        rc, said = self.main("under-nsys", "--", "/bin/true", check="refused")
        self.assertEqual(rc, 0, said)
        self.assertIn("libToolsInjection64.so", said)

    def test_under_nsys_not_checked_with_the_holder_named_passes(self):
        rc, said = self.main("under-nsys", "--", "/bin/true", check="not-checked", holder="Nsight Systems")
        self.assertEqual(rc, 0, said)
        self.assertIn("held by 'Nsight Systems'", said)

    def test_under_nsys_silence_about_the_holder_or_a_verdict_fails(self):
        self.assertEqual(self.main("under-nsys", "--", "/bin/true", check="not-checked")[0], 1)
        self.assertEqual(self.main("under-nsys", "--", "/bin/true", check="clean", holder="x")[0], 1)

    def test_without_nsys_it_is_a_skip(self):
        rc, said = self.main("under-nsys", "--", "/bin/true", nsys=False)
        self.assertEqual(rc, 77, said)


if __name__ == "__main__":
    unittest.main()
