"""The pytest plugin on a machine without a GPU: the checked session is played by process logs that the inner
tests write the way the injected library writes them (checker/core/process_log.cpp), so that what the plugin
does with a finding (which test fails, with what text, in the JUnit file) is tested; and the real `hazardlab
check` runs the session where the plugin must start it again (nothing is watched without a GPU, and it says so).

Usage: test_hazardlab_pytest.py HAZARDLAB  (the built hazardlab program)
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))

# The inner session's helper: appends a finding to this process's log, its frames those of the caller (the
# access) and of `copy_frame` (the copy), as the injected library's fault path does.
LOG_WRITER = textwrap.dedent('''
    import inspect, json, os

    def _frames(depth):
        f = inspect.stack()[depth]
        return [{"file": f.filename, "line": f.lineno, "function": f.function}]

    def _log():
        path = os.path.join(os.environ["HL_CHECK_LOG_FOLDER"], f"process-{os.getpid()}.jsonl")
        fresh = not os.path.exists(path)
        with open(path, "a") as log:
            if fresh:
                log.write(json.dumps({"type": "process", "pid": os.getpid(), "parent": os.getppid(),
                                      "program": "python3", "watching": True, "not_watching_because": ""},
                                     separators=(",", ":"), sort_keys=True) + "\\n")
        return path

    def log_finding(copy=None, python=True, depth=2):
        frames = _frames(depth) if python else []
        finding = {"type": "finding",
                   "finding": {"kind": "host-wrote-copy-source",
                               "copy": {"id": 1, "api": "cuMemcpyHtoDAsync_v2", "stream": 0, "stream_kind": "legacy",
                                        "host_end": "source", "host_begin": 4096, "bytes": 65536,
                                        "memory": "pinned", "graph_node": False, "site": 7},
                               "address": 4100, "offset": 4, "access_site": 9, "thread": 1, "relies_on": []},
                   "copy_stack": [], "access_stack": [],
                   "copy_python": copy if copy is not None else frames, "access_python": frames}
        with open(_log(), "a") as log:
            log.write(json.dumps(finding, separators=(",", ":"), sort_keys=True) + "\\n")
''')

INNER_TESTS = textwrap.dedent('''
    import pytest
    from logwriter import log_finding

    @pytest.fixture
    def staged():
        log_finding()  # a finding in the fixture's own frames
        yield

    def test_racy():
        log_finding()

    def test_clean():
        assert True

    def test_fixture_races(staged):
        pass

    def test_worker_races():
        log_finding(python=False)  # as a DataLoader worker's access: no frame names this test

    def test_fails_on_its_own():
        assert 1 == 2
''')

MODULE_RACES = textwrap.dedent('''
    from logwriter import log_finding
    log_finding()  # at import: the module's collection

    def test_never_reached():
        pass
''')

# A process whose checker could not subscribe to CUPTI writes only its header, saying why.
UNWATCHED = textwrap.dedent('''
    import json, os

    def setup_module():
        path = os.path.join(os.environ["HL_CHECK_LOG_FOLDER"], f"process-{os.getpid()}.jsonl")
        with open(path, "w") as log:
            log.write(json.dumps({"type": "process", "pid": os.getpid(), "parent": os.getppid(), "program": "python3",
                                  "watching": False, "not_watching_because": "CUPTI refused a subscriber "
                                  "(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): another tool, such as a "
                                  "profiler, already holds it"}) + "\\n")

    def test_one():
        pass

    def test_two():
        pass
''')

failures = []


def expect(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def run_pytest(folder, args, env_extra=None, log_folder=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([HERE, folder, env.get("PYTHONPATH", "")])
    env.pop("HL_CHECK_LOG_FOLDER", None)
    env.pop("PYTEST_ADDOPTS", None)
    if log_folder:  # a checked session, played: hazardlab check sets both
        env["HL_CHECK_LOG_FOLDER"] = log_folder
        env["CUDA_INJECTION64_PATH"] = "/played/libhazardlab-check-inject.so"
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "hazardlab_pytest", "-p", "no:cacheprovider", *args],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def junit_cases(path):
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        kind = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                kind = child.tag
                out[case.get("name")] = (kind, (child.get("message") or "") + (child.text or ""))
                break
        else:
            out[case.get("name")] = (kind, "")
    return out


def main(hazardlab):
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "logwriter.py"), "w") as f:
            f.write(LOG_WRITER)
        with open(os.path.join(work, "test_inner.py"), "w") as f:
            f.write(INNER_TESTS)
        logs = os.path.join(work, "logs")
        os.mkdir(logs)

        # 1. In a checked session: each finding fails the test (or fixture) it happened in, nothing else.
        junit = os.path.join(work, "junit.xml")
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", "test_inner.py",
                                 f"--junitxml={junit}"], log_folder=logs)
        print(done.stdout[-4000:], done.stderr[-2000:])
        cases = junit_cases(junit)
        expect(cases.get("test_clean", ("?",))[0] == "passed", "the clean test passes")
        racy_kind, racy_text = cases.get("test_racy", ("?", ""))
        expect(racy_kind == "failure", "the racy test fails")
        expect("h2d-pinned-mutate" in racy_text and "host-wrote-copy-source" in racy_text, "with the hazard")
        line = INNER_TESTS.splitlines().index("    log_finding()") + 1  # the line in test_racy
        expect(f"test_inner.py:{line} in test_racy" in racy_text, f"with the access's Python line (test_inner.py:{line})")
        expect("missing: " in racy_text and "fix: " in racy_text and "in this test" in racy_text,
               "with the missing synchronization and the fix")
        fixture_kind, fixture_text = cases.get("test_fixture_races", ("?", ""))
        expect(fixture_kind == "error" and "in its fixture 'staged'" in fixture_text,
               "a finding in a fixture errors the test's setup, naming the fixture")
        worker_kind, worker_text = cases.get("test_worker_races", ("?", ""))
        expect(worker_kind == "failure" and "while this test ran" in worker_text,
               "a finding whose frames name no test goes to the test that was running, saying so")
        own_kind, own_text = cases.get("test_fails_on_its_own", ("?", ""))
        expect(own_kind == "failure" and "hazardlab" not in own_text, "a test that fails on its own fails as it would")
        expect(done.returncode == 1, f"pytest's own exit status (1), got {done.returncode}")
        expect("nothing was watched" not in done.stdout, "a watched session says nothing about not watching")

        # 2. -k and -x (each session's logs are its own, as each `hazardlab check` run's folder is).
        def fresh_logs():
            for name in os.listdir(logs):
                os.remove(os.path.join(logs, name))
            return logs

        fresh_logs()
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", "test_inner.py", "-k", "clean"],
                          log_folder=logs)
        expect(done.returncode == 0 and "1 passed" in done.stdout, "-k clean runs the clean test only, and it passes")
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", "test_inner.py", "-x"],
                          log_folder=fresh_logs())
        expect(done.returncode == 1 and "1 failed" in done.stdout and "passed" not in done.stdout.split("=")[-2],
               "-x stops at the racy test")

        # 3. A finding at a module's import errors that module's collection.
        with open(os.path.join(work, "test_module_races.py"), "w") as f:
            f.write(MODULE_RACES)
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", "test_module_races.py"],
                          log_folder=fresh_logs())
        expect("ERROR collecting test_module_races.py" in done.stdout and
               "while test_module_races.py was collected" in done.stdout and
               "test_module_races.py:3 in <module>" in done.stdout, "a finding at import errors the module's collection")
        os.remove(os.path.join(work, "test_module_races.py"))

        # 3b. A process the checker could not watch (a profiler holds CUPTI): said once, and no test fails for it.
        with open(os.path.join(work, "test_unwatched.py"), "w") as f:
            f.write(UNWATCHED)
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", "test_unwatched.py"],
                          log_folder=fresh_logs())
        expect(done.returncode == 0 and "2 passed" in done.stdout, "an unwatched process fails no test")
        expect(done.stdout.count("were not watched") == 1 and "CUPTI refused a subscriber" in done.stdout,
               "that a process was not watched, and why, is said once in the summary")
        os.remove(os.path.join(work, "test_unwatched.py"))

        # 4. Not under the checker: the session starts again under the real `hazardlab check`. Without a GPU
        # nothing is watched: said once, no test fails, and the verdict is the checker's (not-checked, 67).
        json_report = os.path.join(work, "check.json")
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", f"--hazardlab-json={json_report}",
                                 "test_inner.py", "-k", "clean"])
        print(done.stdout[-3000:], done.stderr[-3000:])
        expect("1 passed" in done.stdout, "started again under hazardlab check, the clean test passes")
        expect(done.stdout.count("nothing was watched") == 1, "that nothing was watched is said once")
        expect("HAZARDLAB CHECK SUMMARY" in done.stderr, "the session's verdict is hazardlab check's")
        expect(done.returncode == 67, f"the checker's exit status for not-checked (67), got {done.returncode}")
        with open(json_report) as f:
            report = json.load(f)
        expect(report["verdict"] == "not-checked" and report["command"][-1] == "clean",
               "its JSON report is written as hazardlab check writes it, for the same command")
        expect(not any(a.startswith("--hazardlab-json") for a in report["command"]),
               "the restarted session is not given the report options (the checker writes the reports)")
        # Each report option in both spellings, the reports relative and inside the tests' folder ('.'); a second
        # session writes its reports again over the first one's (they are hazardlab's, not the tests' files).
        reports = ["--hazardlab-json", "rj.json", "--hazardlab-sarif=rs.sarif", "--hazardlab-html", "rh.html",
                   "--hazardlab-option=--markdown=rm.md"]
        for session in ("first", "second"):
            done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", *reports, ".", "-k", "clean"])
            written = all(os.path.isfile(os.path.join(work, name)) for name in ("rj.json", "rs.sarif", "rh.html", "rm.md"))
            expect(done.returncode == 67 and "1 passed" in done.stdout and written,
                   f"the {session} session with its reports in both spellings writes them (got {done.returncode}: "
                   f"{done.stderr.strip()[-300:]})")
        with open(os.path.join(work, "notes.json"), "w") as f:
            f.write('{"schema": "a user\'s own"}\n')
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", "--hazardlab-json=notes.json",
                                 ".", "-k", "clean"])
        expect(done.returncode == 2 and "'notes.json' is a file of the session's own" in done.stderr,
               f"a JSON file under the tests' folder that hazardlab did not write is refused (got {done.returncode})")

        # 5. Bad input: exit 2, naming it, before any test runs.
        for args, named in ((["--hazardlab-option=every-occurrence"], "every-occurrence"),
                            (["--hazardlab-option=--sample=0x10"], "0x10"),
                            ([f"--hazardlab-sarif={work}"], work),
                            (["--hazardlab-json=same.json", "--hazardlab-sarif=same.json"], "same.json"),
                            (["--hazardlab-program=/nonexistent/hazardlab"], "/nonexistent/hazardlab"),
                            (["--hazardlab-option=--"], "--hazardlab-option was given"),
                            (["--hazardlab-option=--sample"], "needs a value"),
                            (["--hazardlab-option=--sample 8"], "'--sample 8'"),
                            (["--hazardlab-option=--sample=010.0"], "'010.0' is not allowed"),
                            (["--hazardlab-option=--every-occurrence=yes"], "'yes' is not allowed"),
                            # A blank value is no value: PATH's hazardlab would run, or no report be written.
                            (["--hazardlab-program="], "--hazardlab-program was given a blank value"),
                            (["--hazardlab-html="], "--hazardlab-html was given a blank value"),
                            (["--hazardlab-option=--json=x.json"], "--hazardlab-json"),
                            (["--hazardlab-option=--protection=pkeys"], "'pkeys' is not allowed"),
                            (["--hazardlab-option=--smaple=8"], "'--smaple=8'"),
                            # An option given twice: one of the two would be dropped without a word.
                            (["--hazardlab-option=--sample=8", "--hazardlab-option=--sample=9"],
                             "--hazardlab-option=--sample=9: --sample is given twice"),
                            (["--hazardlab-option=--every-occurrence", "--hazardlab-option=--every-occurrence"],
                             "--every-occurrence is given twice"),
                            (["--hazardlab-json=a.json", "--hazardlab-json=b.json"],
                             "--hazardlab-json is given twice (--hazardlab-json=a.json and --hazardlab-json=b.json)"),
                            ([f"--hazardlab-program={hazardlab}", f"--hazardlab-program={hazardlab}"],
                             "--hazardlab-program is given twice"),
                            # A report over the session's own files, or one that cannot be written: refused
                            # before the session, not written over a test or failed after it.
                            (["--hazardlab-json=test_inner.py"], "'test_inner.py' is a file of the session's own"),
                            (["--hazardlab-option=--markdown=logwriter.py"], "'logwriter.py' is a file of the"),
                            (["--hazardlab-json=/proc/hazardlab-report.json"], "cannot be written"),
                            (["--hazardlab-sarif=/dev/null"], "'/dev/null' is not a plain file")):
            done = run_pytest(work, ["--hazardlab", *([f"--hazardlab-program={hazardlab}"] if "program" not in args[0]
                                                      else []), *args, "test_inner.py"])
            expect(done.returncode == 2 and named in done.stderr and "passed" not in done.stdout,
                   f"{' '.join(args)}: exit 2 naming {named!r} (got {done.returncode}: {done.stderr.strip()[-200:]})")
        with open(os.path.join(work, "test_inner.py")) as f, open(os.path.join(work, "logwriter.py")) as g:
            expect(f.read() == INNER_TESTS and g.read() == LOG_WRITER, "a refused report wrote over no test file")
        # Any file under a folder pytest was given is the session's own.
        os.mkdir(os.path.join(work, "suite"))
        for name, text in (("test_inner.py", INNER_TESTS), ("data.txt", "the tests' data\n")):
            with open(os.path.join(work, "suite", name), "w") as f:
                f.write(text)
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", "--hazardlab-json=suite/data.txt",
                                 "suite"])
        expect(done.returncode == 2 and "'suite/data.txt' is a file of the session's own" in done.stderr,
               f"a report over a file under the tests' folder: exit 2 (got {done.returncode}: {done.stderr[-200:]})")
        # Every option hazardlab check documents may be given (the plugin's list is compared with its help).
        sys.path.insert(0, HERE)
        from hazardlab_pytest_options import CHECK_OPTIONS, OWN_OPTIONS
        described = subprocess.run([hazardlab, "check", "--help"], capture_output=True, text=True, timeout=60).stdout
        documented = set(re.findall(r"^\s+(?:-\w,)?(--[\w-]+)", described, re.M)) - {"--help"}
        expect(documented and documented == set(CHECK_OPTIONS) | set(OWN_OPTIONS),
               f"the plugin takes every option hazardlab check documents: missing "
               f"{sorted(documented - set(CHECK_OPTIONS) - set(OWN_OPTIONS))}, not documented "
               f"{sorted((set(CHECK_OPTIONS) | set(OWN_OPTIONS)) - documented)}")
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", "--hazardlab-option=--graph-nodes",
                                 "--hazardlab-option=--ptx-footprints", "test_inner.py", "-k", "clean"])
        expect(done.returncode == 67 and "1 passed" in done.stdout,
               f"--hazardlab-option=--graph-nodes and --ptx-footprints are taken (got {done.returncode}: "
               f"{done.stderr.strip()[-200:]})")
        # An on/off flag takes true or false (1 or 0) in the same word, as hazardlab check takes it.
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}",
                                 "--hazardlab-option=--every-occurrence=true", "--hazardlab-option=--graph-nodes=0",
                                 "test_inner.py", "-k", "clean"])
        expect(done.returncode == 67 and "1 passed" in done.stdout,
               f"--hazardlab-option=--every-occurrence=true and --graph-nodes=0 are taken (got {done.returncode}: "
               f"{done.stderr.strip()[-200:]})")
        # A misspelt or unknown option is pytest's usage error (4, its message), not the checker's not-checked.
        for typo in ("--hazardlab-js=rj3.json", "--frobnicate"):
            done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", typo, "test_inner.py"])
            expect(done.returncode == 4 and f"unrecognized arguments: {typo}" in done.stderr
                   and "HAZARDLAB CHECK" not in done.stderr and "passed" not in done.stdout,
                   f"{typo}: pytest's usage error, exit 4 (got {done.returncode}: {done.stderr.strip()[-200:]})")
        # A program that is not hazardlab would run instead of the session: no test, nothing said.
        done = run_pytest(work, ["--hazardlab", "--hazardlab-program=/bin/true", "test_inner.py"])
        expect(done.returncode == 2 and "--hazardlab-program '/bin/true' is not hazardlab" in done.stderr,
               f"--hazardlab-program=/bin/true: exit 2 (got {done.returncode}: {done.stderr.strip()[-200:]})")
        # HL_CHECK_LOG_FOLDER set by hand: the session is not the checker's, and would run unchecked.
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}", "test_inner.py"],
                          env_extra={"HL_CHECK_LOG_FOLDER": logs})
        expect(done.returncode == 2 and f"HL_CHECK_LOG_FOLDER='{logs}' is set, but this session is not run by "
               "hazardlab check" in done.stderr and "passed" not in done.stdout,
               f"HL_CHECK_LOG_FOLDER at a folder, not under the checker: exit 2 (got {done.returncode}: "
               f"{done.stderr.strip()[-200:]})")
        # Without --hazardlab the plugin's options would do nothing: refused, before any test runs.
        for args in (["--hazardlab-sarif=out.sarif"], ["--hazardlab-option=--every-occurrence"], ["--hazardlab-json="],
                     [f"--hazardlab-program={hazardlab}", "--hazardlab-json=out.json"]):
            done = run_pytest(work, [*args, "test_inner.py"])
            expect(done.returncode == 2 and "without --hazardlab" in done.stderr and "passed" not in done.stdout
                   and not os.path.exists(os.path.join(work, "out.sarif")),
                   f"{' '.join(args)} without --hazardlab: exit 2 (got {done.returncode}: {done.stderr.strip()[-200:]})")
        # Numbers are decimal, as hazardlab reads them: 010 is ten, never octal eight.
        done = run_pytest(work, ["--hazardlab", f"--hazardlab-program={hazardlab}",
                                 "--hazardlab-option=--unchecked-exitcode=010", "test_inner.py", "-k", "clean"])
        expect(done.returncode == 10, f"--hazardlab-option=--unchecked-exitcode=010 exits 10 (got {done.returncode})")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: test_hazardlab_pytest.py HAZARDLAB\n")
        sys.exit(2)
    sys.exit(main(os.path.abspath(sys.argv[1])))
