#!/usr/bin/env python3
"""The corpus harness on the CPU: every bad input is an error naming it, exit 2, before anything is built or run
(so the same with or without a GPU); masking keeps what a program computed and hides what it timed."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "check_corpus.py")
sys.path.insert(0, HERE)
import corpus_documents  # noqa: E402
import corpus_programs  # noqa: E402
import corpus_runs  # noqa: E402
import cuda_samples  # noqa: E402
import library_examples  # noqa: E402


def harness(*args):
    return subprocess.run([sys.executable, SCRIPT, "--hazardlab", HAZARDLAB, "--work", WORK] + list(args),
                          capture_output=True, text=True)


def write_program(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


class BadInput(unittest.TestCase):
    def setUp(self):
        global WORK, HAZARDLAB
        self.tmp = tempfile.TemporaryDirectory()
        WORK = os.path.join(self.tmp.name, "work")
        HAZARDLAB = write_program(os.path.join(self.tmp.name, "hazardlab"), STANDIN)
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
        self.expect_refused(harness("--corpus", f"samples={self.samples}"), "samples=",
                            "cuda-samples, pytest, library-examples")

    def test_no_corpus_at_all_is_refused(self):
        self.expect_refused(harness(), "no --corpus")

    def test_a_corpus_without_a_program_is_refused(self):
        empty = os.path.join(self.tmp.name, "empty")
        os.makedirs(os.path.join(empty, "Samples"))
        self.expect_refused(harness("--corpus", f"cuda-samples={empty}"), empty, "no sample found")
        self.expect_refused(harness("--corpus", f"pytest={empty}"), empty, "no test_*.py")
        self.expect_refused(harness("--corpus", f"cuda-samples={empty}/Samples"), "no Samples folder")

    def test_expectations_naming_a_program_that_is_not_there_are_refused(self):
        path = self.expectations({"simpleNothing": {"exclude": "gone"}})
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path),
                            "simpleNothing", "is not in")

    def test_a_pytest_folder_of_one_projects_tests_is_run_with_the_shipped_expectations(self):
        for project, held in (("pytorch", "test_cuda.py"), ("cupy", "test_stream.py")):
            folder = os.path.join(self.tmp.name, project)
            os.makedirs(folder)
            self.document(os.path.join(project, held), "def test_stream():\n    pass\n")
            run = harness("--corpus", f"pytest={folder}")
            self.assertNotEqual(run.returncode, 2, run.stdout + run.stderr)
            self.assertIn("program(s) run", run.stdout)
            self.assertRegex(run.stdout, r"test_graph.py +not given")
            shutil.rmtree(WORK)
        # No file the expectations list: not the folder they describe (or the names are misspelt).
        other = os.path.join(self.tmp.name, "other")
        os.makedirs(other)
        self.document("other/test_mine.py", "def test_a(): pass\n")
        self.expect_refused(harness("--corpus", f"pytest={other}"), "is not in", "nor is any pytest file")

    def test_an_only_that_matches_no_program_is_refused(self):
        path = self.expectations({"vectorAdd": {"exclude": "a reason"}})
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path, "--only",
                                    "vectroAdd"), "--only 'vectroAdd' matches no program")

    def test_a_finding_of_a_hazard_that_is_not_a_name_hazardlab_lists_is_refused(self):
        for hazard, said in ((["h2d-pinned-mutate"], "expected the name of a hazard"),
                             ("h2d-pinned-mutat", "'h2d-pinned-mutat' is not one `hazardlab list` names"),
                             ("a-variant", "'a-variant' is not one")):
            path = self.expectations({"vectorAdd": {"findings": [{"hazard": hazard, "why": "w", "lines": ["l"]}]}})
            self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path), said)

    def test_a_switch_must_be_true_or_false_a_selection_not_blank_and_a_masks_reason_beside_a_mask(self):
        for program, said in (({"unordered": "false", "why_unordered": "r"}, "'unordered' 'false': expected true or"),
                              ({"select": " "}, "'select' ' ': expected pytest's -k expression"),
                              ({"why_masked": "times"}, "'why_masked' without a mask")):
            path = self.expectations({"vectorAdd": program})
            self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path), said)

    def test_an_expected_finding_must_say_why_and_where(self):
        path = self.expectations({"vectorAdd": {"findings": [{"hazard": "h2d-pinned-mutate", "why": "a reason"}]}})
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path),
                            "vectorAdd", "'lines'")

    def test_an_unreadable_or_foreign_expectations_file_is_named(self):
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", "/nonexistent.json"),
                            "/nonexistent.json", "expected a file that exists")
        # A pipe may never end (the harness would hang before any run), a device never does.
        fifo = os.path.join(self.tmp.name, "pipe")
        os.mkfifo(fifo)
        for option in ("--expectations", "--library-examples"):
            for path in (fifo, "/dev/zero"):
                run = subprocess.run([sys.executable, SCRIPT, "--hazardlab", HAZARDLAB, "--work", WORK, "--corpus",
                                      f"cuda-samples={self.samples}", option, path], capture_output=True, text=True,
                                     timeout=60)
                self.expect_refused(run, f"argument {option}", "it is not a plain file")
        other = os.path.join(self.tmp.name, "other.json")
        with open(other, "w") as f:
            json.dump({"schema": "something-else"}, f)
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", other),
                            "something-else")

    def test_an_unordered_program_needs_its_reason(self):
        bare = os.path.join(self.tmp.name, "unordered.json")
        with open(bare, "w") as f:
            json.dump({"schema": "hazardlab.corpus-expectations", "schema_version": 1,
                       "corpora": {"cuda-samples": {"programs": {"memMapIPCDrv": {"unordered": True}}}}}, f)
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", bare),
                            "memMapIPCDrv", "why_unordered")

    def test_out_of_range_numbers_are_refused(self):
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--jobs", "0"),
                            "argument --jobs: '0' is not allowed; expected a whole number from 1 to 64")
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--timeout", "0"),
                            "argument --timeout: '0' is not allowed; expected a whole number from 1 to 3600")

    def test_a_work_folder_that_is_a_file_and_outputs_that_are_folders_are_refused_first(self):
        a_file = os.path.join(self.tmp.name, "a-file")
        with open(a_file, "w") as f:
            f.write("mine\n")
        run = subprocess.run([sys.executable, SCRIPT, "--hazardlab", HAZARDLAB, "--work", a_file, "--corpus",
                              f"cuda-samples={self.samples}"], capture_output=True, text=True)
        self.expect_refused(run, "argument --work", a_file, "it is a file")
        with open(a_file) as f:
            self.assertEqual(f.read(), "mine\n")
        for json_at, said in ((self.tmp.name, "it is a folder"),
                              (os.path.join(self.tmp.name, "missing", "rows.json"), "in a folder that exists")):
            self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--json", json_at),
                                "argument --json", said)
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--corpus",
                                    f"cuda-samples={self.samples}"), "given twice")

    def test_expectations_of_the_right_schema_and_the_wrong_shapes_are_refused(self):
        for corpora, said in (([], "'corpora': expected an object"),
                              ({"cuda-samples": {"programs": {"vectorAdd": "skip it"}}},
                               "program 'vectorAdd': expected an object"),
                              ({"cuda-samples": {"programs": {"vectorAdd": {"verdict": "found"}}}},
                               "a verdict needs 'is'"),
                              ({"cuda-samples": {"programs": {"vectorAdd": {"findings": "h2d"}}}},
                               "'findings': expected a list"),
                              ({"cuda-samples": {"programs": []}}, "'programs': expected an object"),
                              ({"cuda-samples": {"mask": ["("]}}, "not a regular expression"),
                              ({"cuda-samples": {"programs": {"vectorAdd": {"timeout": "9"}}}}, "timeout '9'")):
            path = os.path.join(self.tmp.name, "shapes.json")
            with open(path, "w") as f:
                json.dump({"schema": "hazardlab.corpus-expectations", "schema_version": 1, "corpora": corpora}, f)
            self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path),
                                path, said)

    def pytest_folder(self, name, *files):
        folder = os.path.join(self.tmp.name, name)
        os.makedirs(folder)
        for held in files:
            self.document(os.path.join(name, held), "def test_stream():\n    pass\n")
        return folder

    def test_a_control_character_in_an_argument_or_a_selection_is_refused_naming_the_key(self):
        path = self.expectations({"vectorAdd": {"args": ["-n", "3\x00"]}})
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path),
                            "'vectorAdd': 'args'", "control character")
        folder = self.pytest_folder("tests", "test_a.py")
        path = self.expectations({"test_a.py": {"select": "pinned\x00"}}, kind="pytest")
        self.expect_refused(harness("--corpus", f"pytest={folder}", "--expectations", path), "'select'",
                            "control character")

    def test_a_pytest_program_that_is_not_a_plain_test_file_name_is_refused(self):
        folder = self.pytest_folder("tests", "test_a.py")
        for name in ("../evil.py", "notatest", "sub/test_a.py"):
            path = self.expectations({"test_a.py": {}, name: {"exclude": "a reason"}}, kind="pytest")
            self.expect_refused(harness("--corpus", f"pytest={folder}", "--expectations", path), repr(name),
                                "test_*.py")

    def test_a_selection_pytest_cannot_read_is_refused_before_any_run(self):
        folder = self.pytest_folder("tests", "test_a.py")
        for select in ("pinned or (", "pinned or", "(copy", "copy)", "copy stream", "copy & stream", "and copy"):
            path = self.expectations({"test_a.py": {"select": select}}, kind="pytest")
            self.expect_refused(harness("--corpus", f"pytest={folder}", "--expectations", path),
                                f"'select' {select!r}", "not pytest's -k expression")
            self.assertFalse(os.path.exists(os.path.join(WORK, "runs")), "a run was made")
        from corpus_words import selection_problem
        for select in ("", corpus_programs.SELECT_PYTEST, "not (copy and slow) or test_a[1-2]", "a.b/c::d"):
            self.assertIsNone(selection_problem(select), select)

    def test_two_pytest_folders_holding_a_file_of_one_name_are_refused(self):
        one, two = self.pytest_folder("one", "test_cuda.py"), self.pytest_folder("two", "test_cuda.py")
        self.expect_refused(harness("--corpus", f"pytest={one}", "--corpus", f"pytest={two}"), "both hold",
                            "'test_cuda.py'")
        self.assertFalse(os.path.exists(WORK))

    def test_a_work_folder_that_is_there_but_cannot_be_written_is_said_so(self):
        import corpus_work
        os.makedirs(WORK)
        with unittest.mock.patch("builtins.open", side_effect=PermissionError(13, "Permission denied")):
            with self.assertRaises(corpus_documents.BadInput) as refused:
                corpus_work.make_work_folder(WORK)
        self.assertIn("cannot be written (Permission denied)", str(refused.exception))

    def document(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb" if isinstance(text, bytes) else "w") as f:
            f.write(text)
        return path

    def test_a_document_of_bytes_long_numbers_or_deep_nesting_is_named_not_a_traceback(self):
        for text, said in ((b"\xff\xfe\x00binary", "not UTF-8"),
                           ('{"schema": "x", "n": ' + "9" * 5001 + "}", "more than 4300 digits"),
                           ("[" * 100000, "nested too deep")):
            path = self.document("doc.json", text)
            for option in ("--expectations", "--library-examples"):
                run = harness("--corpus", f"cuda-samples={self.samples}", option, path)
                self.expect_refused(run, f"{option} {path!r}", said)
                self.assertNotIn("Traceback", run.stderr)

    def test_unknown_keys_another_schema_version_and_findings_beside_a_verdict_are_refused(self):
        finding = {"hazard": "h", "why": "w", "lines": ["l"]}
        for document, said in (({"corpora": {}, "extra": 1}, "unknown key(s) 'extra'"),
                               ({"corpora": {}, "schema_version": 99},
                                "schema_version 99; this reader knows version 1"),
                               ({"corpora": {}, "schema_version": "1"}, "schema_version '1'"),
                               ({"corpora": {"cuda-samples": {"programs": {"vectorAdd": {"exclude_typo": "r"}}}}},
                                "unknown key(s) 'exclude_typo'; the keys allowed are args, select"),
                               ({"corpora": {"cuda-samples": {"programs": {"vectorAdd": {"findings": [
                                   dict(finding, lien=1)]}}}}}, "a finding: unknown key(s) 'lien'"),
                               ({"corpora": {"cuda-samples": {"programs": {"vectorAdd": {
                                   "findings": [finding], "verdict": {"is": "found", "why": "w"}}}}}},
                                "both 'findings' and 'verdict'"),
                               ({"corpora": {"cuda-samples": {"programs": {"vectorAdd": {"verdict": "not-checked"}}}}},
                                "found 'not-checked'"),
                               ({"corpora": {"cuda-samples": {"programs": {"vectorAdd": {"exclude": True}}}}},
                                "'exclude' needs its reason"),
                               ({"corpora": {"cuda-samples": {"programs": {"vectorAdd": {"args": [1, {"x": 2}]}}}}},
                                "'args': expected a list of strings")):
            path = self.document("e.json", json.dumps(dict({"schema": "hazardlab.corpus-expectations"}, **document)))
            self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path), said)

    def test_a_key_given_twice_in_one_object_is_refused(self):
        path = self.document("e.json", '{"schema": "hazardlab.corpus-expectations", "corpora": {"cuda-samples": '
                             '{"programs": {"vectorAdd": {"exclude": "a reason"}, "vectorAdd": {}}}}}')
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--expectations", path),
                            "the key 'vectorAdd' is given twice")

    def test_a_library_examples_listing_is_checked_without_its_corpus(self):
        path = self.document("junk.bin", b"\x00\xff junk")
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--library-examples", path),
                            "--library-examples", "not UTF-8")

    def test_a_corpus_that_is_a_file_is_said_to_be_a_file(self):
        a_file = self.document("test_a.py", "def test_a(): pass\n")
        self.expect_refused(harness("--corpus", f"pytest={a_file}"), "expected a folder", "is a file")

    def test_a_huge_number_of_jobs_is_refused_with_the_range_and_the_value_cut(self):
        run = harness("--corpus", f"cuda-samples={self.samples}", "--jobs", "9" * 5000)
        self.expect_refused(run, "argument --jobs: '9999", "(5000 characters) is not allowed; expected a whole "
                            "number from 1 to 64")
        self.assertLess(len(run.stderr), 1000)

    def test_hazardlab_must_be_hazardlab(self):
        run = subprocess.run([sys.executable, SCRIPT, "--hazardlab", "/bin/true", "--work", WORK, "--corpus",
                              f"cuda-samples={self.samples}"], capture_output=True, text=True)
        self.expect_refused(run, "argument --hazardlab", "does not describe hazardlab check")

    @unittest.skipUnless(os.path.isdir("/proc/self"), "needs /proc, a folder that takes nothing new")
    def test_a_work_folder_or_json_that_cannot_be_made_is_refused_first(self):
        for work, json_at, said in (("/proc/x", os.path.join(self.tmp.name, "rows.json"), "--work: '/proc/x' is "
                                     "not allowed; expected a folder (made when missing) in a folder that takes new "
                                     "folders"), (WORK, "/proc/x.json", "--json: '/proc/x.json' is not allowed; "
                                                  "expected a file in a folder that takes new files")):
            run = subprocess.run([sys.executable, SCRIPT, "--hazardlab", HAZARDLAB, "--work", work, "--json", json_at,
                                  "--corpus", f"cuda-samples={self.samples}"], capture_output=True, text=True)
            self.expect_refused(run, said)
            self.assertNotIn("Traceback", run.stderr)

    def test_a_work_folder_holding_a_users_files_is_refused_and_left_as_it_was(self):
        os.makedirs(WORK)
        users = {"plain.out": "mine\n", "force-architecture.cmake": "mine\n", ".check-corpus-work": "/elsewhere\n"}
        for name, text in users.items():
            self.document(os.path.join("work", name), text)
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}"), "--work", "did not put there")
        for name, text in users.items():
            with open(os.path.join(WORK, name)) as f:
                self.assertEqual(f.read(), text)

    def test_outputs_inside_a_corpus_are_refused(self):
        tests = os.path.join(self.tmp.name, "tests")
        os.makedirs(tests)
        test_a = self.document("tests/test_a.py", "def test_a(): pass\n")
        self.expect_refused(harness("--corpus", f"pytest={tests}", "--json", test_a), "--json", "inside --corpus")
        with open(test_a) as f:
            self.assertEqual(f.read(), "def test_a(): pass\n")
        run = subprocess.run([sys.executable, SCRIPT, "--hazardlab", HAZARDLAB, "--work", os.path.join(tests, "w"),
                              "--corpus", f"pytest={tests}"], capture_output=True, text=True)
        self.expect_refused(run, "--work", "inside --corpus")

    def test_a_json_or_a_corpus_inside_the_work_folder_is_refused(self):
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--json", WORK),
                            "--json", "is inside --work")
        self.assertFalse(os.path.exists(WORK))
        # A work folder an earlier run made: its marker, and a corpus the runs would write over.
        corpus = os.path.join(WORK, "runs", "pytest", "test_a.py")
        os.makedirs(corpus)
        test_a = self.document("work/runs/pytest/test_a.py/test_a.py", "def test_a(): pass\n")
        marker = self.document("work/.check-corpus-work", os.path.realpath(WORK) + "\n")
        self.expect_refused(harness("--corpus", f"cuda-samples={self.samples}", "--json", marker),
                            "--json", "is inside --work")
        self.expect_refused(harness("--corpus", f"pytest={corpus}"), f"--corpus pytest={corpus!r} is inside --work")
        with open(test_a) as f, open(marker) as g:
            self.assertEqual((f.read(), g.read()), ("def test_a(): pass\n", os.path.realpath(WORK) + "\n"))

    def test_the_samples_own_arguments_are_checked_before_anything_is_made(self):
        for text, said in (("{not json", "not JSON"), ('{"vectorAdd": {"args": "-n 5"}}', "expected a list of strings"),
                           ('{"vectorAdd": {"runs": [{"args": [5]}]}}', "expected a list of strings"),
                           ('["vectorAdd"]', "expected an object")):
            path = os.path.join(self.samples, "test_args.json")
            with open(path, "w") as f:
                f.write(text)
            run = harness("--corpus", f"cuda-samples={self.samples}")
            self.expect_refused(run, path, said)
            self.assertFalse(os.path.exists(WORK), "the work folder was made")

    def test_a_corpus_not_given_here_is_a_skip_not_a_pass(self):
        run = harness("--corpus", "cuda-samples=", "--corpus", "pytest=", "--corpus", "library-examples=")
        self.assertEqual(run.returncode, 77, run.stdout + run.stderr)
        self.assertIn("nothing run", run.stdout)

    def test_the_shipped_expectations_are_valid(self):
        corpus_documents.load_expectations(os.path.join(HERE, "expectations.json"))


class Samples(unittest.TestCase):
    def test_a_target_named_otherwise_than_its_folder_is_found_where_it_is_built(self):
        with tempfile.TemporaryDirectory() as tmp:
            for folder, target in (("device-side-launch", "dsl"), ("cuda-c-linking", "cuda-c-linking")):
                os.makedirs(os.path.join(tmp, "Samples", "7_libNVVM", folder))
                with open(os.path.join(tmp, "Samples", "7_libNVVM", folder, "CMakeLists.txt"), "w") as f:
                    f.write(f"add_executable({target} main.c)\n")
                built = os.path.join(tmp, "build", "Samples", "7_libNVVM", folder)
                os.makedirs(built)
                with open(os.path.join(built, target), "w") as f:
                    f.write("")
                os.chmod(os.path.join(built, target), 0o755)
            found = cuda_samples.sample_folders(tmp)
            self.assertEqual(sorted(found), ["cuda-c-linking", "dsl"])
            for name, (category, folder) in found.items():
                self.assertIsNotNone(cuda_samples.executable_of(os.path.join(tmp, "build"), category, name, folder), name)

    def test_as_root_open_mpi_may_start_so_that_simple_mpi_runs(self):
        for name in ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"):
            with unittest.mock.patch.dict(os.environ, clear=False):
                os.environ.pop(name, None)
                with unittest.mock.patch("os.geteuid", return_value=0):
                    self.assertEqual(cuda_samples.samples_environment().get(name), "1")
                with unittest.mock.patch("os.geteuid", return_value=1000):
                    self.assertNotIn(name, cuda_samples.samples_environment())

    def test_simple_mpi_is_expected_watched_and_clean(self):
        # Its old not-checked reason was wrong (the injection entry ran twice); no expectation excuses it now.
        shipped = corpus_documents.load_expectations(os.path.join(HERE, "expectations.json"))
        self.assertNotIn("simpleMPI", shipped["corpora"]["cuda-samples"]["programs"])


class Masking(unittest.TestCase):
    def test_times_rates_and_addresses_are_masked_and_results_are_not(self):
        masks = [re.compile(m) for m in corpus_programs.DEFAULT_MASKS]
        out = corpus_runs.masked("Result = PASS\nTime = 1.25 msec\nBandwidth 54.1 GB/s\nptr 0x7f00deadbeef\n"
                                  "sum = 4096\n", masks)
        self.assertEqual(out, ["Result = PASS", "sum = 4096"])

    def test_a_varying_number_of_masked_lines_does_not_shift_the_rest(self):
        masks = [re.compile(r"^info")]
        self.assertEqual(corpus_runs.masked("a\ninfo 1\ninfo 2\nb\n", masks),
                         corpus_runs.masked("a\ninfo 1\nb\n", masks))

    def test_pytest_keeps_its_counts_and_loses_its_duration(self):
        out = corpus_runs.masked("== 3 passed, 1 failed in 2.31s ==", [], [corpus_runs.PYTEST_DURATION])
        self.assertEqual(out, ["== 3 passed, 1 failed<masked> =="])


# A stand-in for `hazardlab check`: runs the program, then writes the report the real one would, with the
# verdict the test asks for (STANDIN_VERDICT), so that the comparison is tested without a GPU. As
# `hazardlab devices --json` it names one GPU of the compute capability STANDIN_CC (8.6 unless told).
STANDIN = """#!/usr/bin/env python3
import json, os, subprocess, sys
args = sys.argv[1:]
if args[:2] == ["check", "--help"]:
    print("hazardlab check: a stand-in")
    sys.exit(0)
if args[0] == "list":
    print("cross-stream-no-event: two streams\\n  a-variant (control): one\\nh2d-pinned-mutate: a pinned source")
    sys.exit(0)
if args[0] == "devices":
    print(json.dumps({"devices": [{"compute_capability": os.environ.get("STANDIN_CC", "8.6")}]}))
    sys.exit(0)
report = args[args.index("--json") + 1]
command = args[args.index("--") + 1:]
p = subprocess.run(command)
if os.environ.get("STANDIN_NO_REPORT"):  # a checker that ended before its report
    sys.exit(p.returncode)
verdict = os.environ.get("STANDIN_VERDICT", "clean")
# STANDIN_FINDINGS=N: N races, each reported from inside the checker's own library first, then the program.
race = {"finding": {"hazard": "cross-stream-no-event"},
        "access_stack": [{"module": "/opt/lib/libhazardlab-check-inject.so", "location": "driver_calls.cpp:110"},
                         {"module": "/bin/p", "location": "p.cu:364"}]}
processes = [{"findings": [race] * int(os.environ.get("STANDIN_FINDINGS", "0"))}]
json.dump({"verdict": verdict, "program_end": {"signalled": p.returncode < 0, "code": abs(p.returncode)},
           "not_checked_because": [], "processes": processes}, open(report, "w"))
sys.exit(p.returncode if verdict == "clean" else 252)
"""


class Comparison(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.hazardlab = os.path.join(self.tmp.name, "hazardlab")
        with open(self.hazardlab, "w") as f:
            f.write(STANDIN)
        os.chmod(self.hazardlab, 0o755)
        self.args = type("Args", (), {"hazardlab": self.hazardlab, "timeout": 20})()

    def tearDown(self):
        self.tmp.cleanup()
        os.environ.pop("STANDIN_VERDICT", None)
        os.environ.pop("STANDIN_FINDINGS", None)

    def compare(self, script, expected=None, masks=()):
        command = ["/bin/sh", "-c", script]
        return corpus_runs.compare("p", command, self.tmp.name, [re.compile(m) for m in masks], expected or {},
                                    self.args)

    def test_the_same_behaviour_is_clean(self):
        self.assertEqual(self.compare("echo result 42; exit 3")["result"], "clean")

    # The program is run twice without the checker, then under it: a marker file counts the runs, so the third
    # behaves otherwise, as a program the checker changed would.
    def test_a_different_output_or_exit_status_under_the_checker_is_a_difference(self):
        marker = os.path.join(self.tmp.name, "runs")
        row = self.compare(f'echo x >> {marker}; test $(wc -l < {marker}) -ge 3 && echo changed; exit 0')
        self.assertIn("standard output differs", " ".join(row["differences"]))
        os.remove(marker)
        row = self.compare(f'echo x >> {marker}; test $(wc -l < {marker}) -ge 3 && exit 5; exit 0')
        self.assertIn("exit status 0 without the checker, 5 under it", " ".join(row["differences"]))

    def test_a_line_that_varies_without_the_checker_is_not_a_difference(self):
        row = self.compare('echo stable; date +%N; echo stable too')
        self.assertEqual(row["result"], "clean", row["differences"])
        self.assertEqual(row["lines_varying_without_the_checker"], 1)

    # The first run without the checker fails on its own (as cdpAdvancedQuicksort's "Stack allocation error!" did
    # once, eight programs sharing the GPU); the second and the checked run print the same: not the checker's doing.
    # Output that neither run without the checker printed stays a difference (the test above).
    def test_output_the_program_printed_without_the_checker_is_not_a_difference(self):
        marker = os.path.join(self.tmp.name, "runs")
        row = self.compare(f'echo x >> {marker}; echo start; test $(wc -l < {marker}) -eq 1 && echo "error!"; '
                           'echo end')
        self.assertEqual(row["result"], "clean", row["differences"])

    def test_a_crash_under_the_checker_is_a_difference(self):
        marker = os.path.join(self.tmp.name, "runs")
        row = self.compare(f'echo x >> {marker}; test $(wc -l < {marker}) -ge 3 && kill -SEGV $$; exit 0')
        self.assertEqual(row["result"], "DIFFERENT")

    # p2pBandwidthLatencyTest races once per pair of call sites: a GPU with itself each way, and two GPUs each way
    # where it sees two. The cross-GPU findings are expected only where the harness counted two GPUs.
    def test_a_finding_between_gpus_is_expected_only_where_there_are_that_many(self):
        os.environ["STANDIN_VERDICT"] = "found"
        expected = {"findings": [{"hazard": "cross-stream-no-event", "why": "w", "lines": ["p.cu:364"]}] * 2 +
                    [{"hazard": "cross-stream-no-event", "why": "w", "needs_gpus": 2, "lines": ["p.cu:364"]}] * 2}
        for gpus, found, result in ((1, 2, "found (expected)"), (2, 4, "found (expected)"), (2, 2, "DIFFERENT"),
                                    (1, 4, "DIFFERENT")):
            os.environ["STANDIN_FINDINGS"] = str(found)
            self.args.gpus = gpus
            row = self.compare("exit 0", expected)
            self.assertEqual(row["result"], result, (gpus, found, row["differences"]))
        # The row names the program's line, not the checker's own frame above it.
        self.assertEqual(row["findings"][0]["access"], "p.cu:364")

    def test_a_needs_gpus_that_is_not_a_whole_number_of_gpus_is_refused(self):
        path = os.path.join(self.tmp.name, "e.json")
        for bad in ("2", 0, True, 1.5):
            with open(path, "w") as f:
                json.dump({"schema": "hazardlab.corpus-expectations", "corpora": {"cuda-samples": {"programs": {
                    "p": {"findings": [{"hazard": "h", "why": "w", "lines": ["l"], "needs_gpus": bad}]}}}}}, f)
            with self.assertRaises(corpus_documents.BadInput) as e:
                corpus_documents.load_expectations(path)
            self.assertIn("needs_gpus", str(e.exception))

    def test_a_verdict_other_than_expected_is_a_difference(self):
        os.environ["STANDIN_VERDICT"] = "not-checked"
        self.assertEqual(self.compare("exit 0")["result"], "DIFFERENT")
        expected = {"verdict": {"is": "not-checked", "why": "never starts CUDA"}}
        self.assertEqual(self.compare("exit 0", expected)["result"], "not-checked (expected)")


# A stand-in for nvcc: records its arguments (one JSON line each call, in STANDIN_NVCC_LOG), fails as a compiler
# does on a source that holds BREAK, and otherwise writes, at -o, a program that prints the architecture it was
# built for and its own arguments.
STANDIN_NVCC = """#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
with open(os.environ["STANDIN_NVCC_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
sources = [a for a in args if a.endswith((".cu", ".c", ".cpp"))]
if any("BREAK" in open(s).read() for s in sources):
    sys.stderr.write(sources[0] + "(3): error: identifier \\"oops\\" is undefined\\n")
    sys.exit(1)
arch = next(a for a in args if a.startswith("-arch="))[len("-arch="):]
out = args[args.index("-o") + 1]
with open(out, "w") as program:
    program.write("#!/bin/sh\\necho built for " + arch + " with \\"$*\\"\\n")
os.chmod(out, 0o755)
"""


class LibraryExamples(unittest.TestCase):
    """The library-examples corpus: the listed programs of a staged folder, built as listed for this GPU only."""

    def setUp(self):
        global WORK
        self.tmp = tempfile.TemporaryDirectory()
        WORK = os.path.join(self.tmp.name, "work")
        self.corpus = os.path.join(self.tmp.name, "cuda-library-examples")
        self.write("SomeLibrarySamples/stream/ok.cu", "int main() {}\n")
        self.write("SomeLibrarySamples/stream/broken.cu", "BREAK\n")
        self.listing = os.path.join(self.tmp.name, "library_examples.json")
        self.programs = {
            "works": {"folder": "SomeLibrarySamples/stream", "files": ["SomeLibrarySamples/stream/ok.cu"],
                      "build": {"nvcc": ["ok.cu", "-lcublas"], "as": "its Makefile's line"},
                      "args": ["-n", "3"], "streams": "two streams and an event"},
            "breaks": {"folder": "SomeLibrarySamples/stream", "files": ["SomeLibrarySamples/stream/broken.cu"],
                       "build": {"nvcc": ["broken.cu"], "as": "its Makefile's line"},
                       "streams": "one non-blocking stream"}}
        self.write_listing(self.programs)
        self.hazardlab = os.path.join(self.tmp.name, "hazardlab")
        self.nvcc = os.path.join(self.tmp.name, "nvcc")
        for path, text in ((self.hazardlab, STANDIN), (self.nvcc, STANDIN_NVCC)):
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        self.nvcc_log = os.path.join(self.tmp.name, "nvcc.log")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, path, text):
        os.makedirs(os.path.dirname(os.path.join(self.corpus, path)), exist_ok=True)
        with open(os.path.join(self.corpus, path), "w") as f:
            f.write(text)

    def write_listing(self, programs):
        with open(self.listing, "w") as f:
            json.dump({"schema": "hazardlab.library-examples", "schema_version": 1, "programs": programs}, f)

    def run_harness(self, *extra, env=None):
        """The harness over the stand-in corpus; with expectations of its own that name no program, unless given."""
        if "--expectations" not in extra:
            none_named = os.path.join(self.tmp.name, "no-expectations.json")
            with open(none_named, "w") as f:
                json.dump({"schema": "hazardlab.corpus-expectations", "schema_version": 1, "corpora": {}}, f)
            extra = ("--expectations", none_named) + extra
        env = {**os.environ, "CUDACXX": self.nvcc, "STANDIN_NVCC_LOG": self.nvcc_log, **(env or {})}
        listing = () if "--library-examples" in extra else ("--library-examples", self.listing)
        return subprocess.run([sys.executable, SCRIPT, "--hazardlab", self.hazardlab, "--work", WORK,
                               "--corpus", f"library-examples={self.corpus}", *listing,
                               "--json", os.path.join(self.tmp.name, "rows.json")] + list(extra),
                              capture_output=True, text=True, env=env)

    def expect_refused(self, run, *words):
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        for w in words:
            self.assertIn(w, run.stderr)
        self.assertFalse(os.path.exists(self.nvcc_log), "something was built")

    def test_a_missing_folder_is_named(self):
        self.expect_refused(subprocess.run([sys.executable, SCRIPT, "--hazardlab", self.hazardlab, "--work", WORK,
                                            "--corpus", "library-examples=/nonexistent/examples"],
                                           capture_output=True, text=True), "/nonexistent/examples", "does not exist")

    def test_a_program_name_that_is_not_one_plain_part_of_a_path_is_refused(self):
        outside = os.path.join(self.tmp.name, "victim")
        os.makedirs(outside)
        for name in ("../p", os.path.join(outside, "notes"), ".", "..", "", "x" * 101, "a b"):
            self.write_listing({name: self.programs["works"]})
            self.expect_refused(self.run_harness(), repr(name), "one plain part of a path")
        self.assertEqual(os.listdir(outside), [])

    def test_arguments_that_are_not_strings_are_refused(self):
        for args in ([1, None, {"a": 1}], "-n 3"):
            self.write_listing({"works": dict(self.programs["works"], args=args)})
            self.expect_refused(self.run_harness(), "'works'", "'args': expected a list of strings")
        self.write_listing({"works": dict(self.programs["works"], buld={})})
        self.expect_refused(self.run_harness(), "unknown key(s) 'buld'", "folder, files, build, args, streams")

    def test_a_cudacxx_that_is_not_a_compiler_is_refused_before_anything_is_made(self):
        for given in ("", os.path.join(self.tmp.name, "no-nvcc")):
            run = self.run_harness(env={"CUDACXX": given})
            self.expect_refused(run, f"CUDACXX={given!r}", "expected the CUDA compiler")
            self.assertFalse(os.path.exists(WORK), "the work folder was made")

    def test_a_work_folder_an_earlier_run_made_is_taken_and_only_this_runs_report_is_read(self):
        self.write_listing({"works": self.programs["works"]})
        self.assertEqual(self.run_harness().returncode, 0)
        self.assertTrue(os.path.isfile(os.path.join(WORK, ".check-corpus-work")))
        report = os.path.join(WORK, "runs", "library-examples", "works", "hazardlab-check.json")
        with open(report, "w") as f:
            f.write("{not this run's")
        run = self.run_harness(env={"STANDIN_NO_REPORT": "1"})
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertNotIn("Traceback", run.stderr)
        self.assertRegex(run.stdout, r"works +0 +0 +no report")

    def test_a_program_named_as_another_ones_build_log_builds_and_runs(self):
        self.write_listing({"works": self.programs["works"], "works.log": self.programs["works"]})
        run = self.run_harness()
        self.assertNotIn("Traceback", run.stderr)
        self.assertIn("2 program(s) run: 2 clean", run.stdout, run.stdout + run.stderr)

    def test_a_listed_program_whose_file_is_missing_is_named_before_anything_is_built(self):
        os.remove(os.path.join(self.corpus, "SomeLibrarySamples/stream/broken.cu"))
        self.expect_refused(self.run_harness(), "'breaks'", "SomeLibrarySamples/stream/broken.cu", "is not there")

    def test_a_listing_that_does_not_say_how_to_build_or_why_is_refused(self):
        for change, words in (({"build": {}}, ["'works'", "exactly one of"]),
                              ({"build": {"cmake_target": "x", "nvcc": ["ok.cu"], "as": "y"}}, ["exactly one of"]),
                              ({"build": {"nvcc": ["ok.cu"]}}, ["'as'"]),
                              ({"streams": ""}, ["'streams'"]),
                              ({"streams": None}, ["'streams' None: expected a text"]),
                              ({"streams": ["two streams"]}, ["'streams' ['two streams']: expected a text"]),
                              ({"build": {"nvcc": ["ok.cu"], "as": None}}, ["'as'"]),
                              ({"files": []}, ["'files'"]),
                              ({"files": ["../elsewhere/ok.cu"]}, ["outside the staged folder"]),
                              ({"build": "nvcc ok.cu"}, ["'build' is str", "expected an object"]),
                              ({"build": {"cmake_target": 5}}, ["'cmake_target' must name"]),
                              ({"build": {"nvcc": [], "as": "its Makefile's line"}}, ["'nvcc' is empty"]),
                              ({"build": {"nvcc": ["ok\x00.cu"], "as": "y"}}, ["'nvcc'", "control character"]),
                              ({"files": ["SomeLibrarySamples/stream/./ok.cu"]}, ["not a normal path"]),
                              ({"folder": "SomeLibrarySamples/stream/"}, ["not a normal path"]),
                              ({"files": ["SomeLibrarySamples/stream/ok.cu\x00"]}, ["control character"]),
                              ({"args": ["-n\x00"]}, ["'args'", "control character"]),
                              ({"files": ["SomeLibrarySamples/stream/ok.cu"] * 2}, ["names", "twice"]),
                              ({"folder": "SomeLibrarySamples/stream/ok.cu"}, ["is a file", "expected the folder"])):
            self.write_listing({"works": dict(self.programs["works"], **change)})
            self.expect_refused(self.run_harness(), *words)
        self.write_listing({"works": "a program"})
        self.expect_refused(self.run_harness(), "'works'", "expected an object")
        with open(self.listing, "w") as f:
            json.dump({"schema": "something-else"}, f)
        self.expect_refused(self.run_harness(), self.listing, "something-else")
        self.expect_refused(self.run_harness("--library-examples", "/nonexistent.json"), "/nonexistent.json",
                            "expected a file that exists")

    def test_expectations_naming_a_program_that_is_not_listed_are_refused(self):
        expectations = os.path.join(self.tmp.name, "expectations.json")
        with open(expectations, "w") as f:
            json.dump({"schema": "hazardlab.corpus-expectations", "schema_version": 1,
                       "corpora": {"library-examples": {"programs": {"gone": {"exclude": "a reason"}}}}}, f)
        self.expect_refused(self.run_harness("--expectations", expectations), "'gone'", "is not in")

    def test_each_builds_for_this_gpu_only_runs_with_its_arguments_and_one_that_does_not_build_is_not_a_pass(self):
        run = self.run_harness()
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertRegex(run.stdout, r"library-examples +works +0 +0 +clean +clean")
        self.assertRegex(run.stdout, r"breaks +NOT BUILT: did not build: broken\.cu\(3\): error: identifier")
        self.assertIn("1 program(s) run: 1 clean", run.stdout)
        self.assertIn("1 not built", run.stdout)
        with open(os.path.join(self.tmp.name, "rows.json")) as f:
            rows = json.load(f)
        self.assertEqual([r["program"] for r in rows["rows"]], ["works"])
        self.assertEqual([r["program"] for r in rows["not_built"]], ["breaks"])
        with open(self.nvcc_log) as f:
            calls = [json.loads(line) for line in f]
        self.assertEqual(len(calls), 2)
        for call in calls:
            self.assertIn("-arch=sm_86", call)  # the stand-in GPU's compute capability, and no other
            self.assertEqual(sum(a.startswith(("-arch", "-gencode", "--generate-code")) for a in call), 1)
        self.assertIn(["-arch=sm_86", "-o", os.path.join(WORK, "library-examples-build", "works", "works"),
                       "ok.cu", "-lcublas"], calls)
        with open(os.path.join(WORK, "runs", "library-examples", "works", "plain.out")) as f:
            self.assertIn("built for sm_86 with -n 3\n", f.read())
        # The same corpus without the program that does not build passes.
        del self.programs["breaks"]
        self.write_listing(self.programs)
        run = self.run_harness()
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("0 not built", run.stdout)

    def test_an_excluded_program_is_neither_built_nor_run(self):
        expectations = os.path.join(self.tmp.name, "expectations.json")
        with open(expectations, "w") as f:
            json.dump({"schema": "hazardlab.corpus-expectations", "schema_version": 1,
                       "corpora": {"library-examples": {"programs": {"breaks": {"exclude": "a reason"}}}}}, f)
        run = self.run_harness("--expectations", expectations)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertRegex(run.stdout, r"breaks +excluded: a reason")
        with open(self.nvcc_log) as f:
            self.assertEqual(len(f.readlines()), 1)

    def test_without_a_cuda_compiler_nothing_is_built_and_it_says_why(self):
        exe, why = library_examples.build_library_example("works", self.programs["works"], self.corpus,
                                                      os.path.join(self.tmp.name, "build"), "90", None)
        self.assertIsNone(exe)
        self.assertIn("no CUDA compiler", why)

    @unittest.skipUnless(all(map(shutil.which, ("cmake", "ninja", "c++"))), "needs cmake, ninja and a C++ compiler")
    def test_an_example_with_its_own_cmake_is_built_by_it_with_the_gpus_architecture(self):
        # A C++ project stands in for an example's CMake: the architecture is handed to it as CMake's own
        # variable, and the executable is found where the example's CMake puts it (here in bin/).
        self.write("SomeLibrarySamples/cmake/CMakeLists.txt",
                   "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX)\n"
                   "set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)\n"
                   "add_executable(hello_example hello.cpp)\n")
        self.write("SomeLibrarySamples/cmake/hello.cpp", '#include <cstdio>\nint main() { std::puts("hello"); }\n')
        program = {"folder": "SomeLibrarySamples/cmake", "files": ["SomeLibrarySamples/cmake/hello.cpp"],
                   "build": {"cmake_target": "hello_example"}, "streams": "none: a stand-in"}
        build_root = os.path.join(self.tmp.name, "build")
        exe, why = library_examples.build_library_example("hello", program, self.corpus, build_root, "86", self.nvcc)
        self.assertIsNone(why)
        self.assertEqual(exe, os.path.join(build_root, "hello", "bin", "hello_example"))
        self.assertEqual(subprocess.run([exe], capture_output=True, text=True).stdout, "hello\n")
        with open(os.path.join(build_root, "hello", "CMakeCache.txt")) as f:
            self.assertRegex(f.read(), r"CMAKE_CUDA_ARCHITECTURES:\w+=86\n")
        self.write("SomeLibrarySamples/cmake/CMakeLists.txt", "project(p LANGUAGES CXX\n")
        exe, why = library_examples.build_library_example("unclosed", program, self.corpus, build_root, "86", self.nvcc)
        self.assertIsNone(exe)
        self.assertTrue(why.startswith("not configured: "), why)

    def test_the_shipped_listing_is_valid_and_checked_file_by_file(self):
        shipped = os.path.join(HERE, "library_examples.json")
        programs = corpus_documents.load_library_examples(shipped)
        with open(shipped) as f:
            repositories = json.load(f)["repositories"]
        for name, program in programs.items():
            self.assertIn(program["folder"].split("/")[0], repositories, name)
            for path in program["files"]:
                self.write(path, "")
        self.assertEqual(sorted(library_examples.library_example_programs(self.corpus, shipped)), sorted(programs))
        first = next(iter(programs.values()))["files"][0]
        os.remove(os.path.join(self.corpus, first))
        with self.assertRaisesRegex(corpus_documents.BadInput, re.escape(first)):
            library_examples.library_example_programs(self.corpus, shipped)


if __name__ == "__main__":
    unittest.main()
