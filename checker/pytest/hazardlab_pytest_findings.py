"""pytest --hazardlab's half inside the checked session: after each phase of each test, and after each module is
collected, the findings new in the processes' logs (read by `hazardlab findings`) are given to the test, fixture or
module they happened in, and the test fails with them in pytest's own report (hazardlab_pytest.py says the rules).
Installed beside hazardlab_pytest.py."""

import json
import os
import subprocess

import pytest

FINDING_RECORD = b'"type":"finding"'  # how a finding's line in a process log is told apart cheaply


def _same_file(a, b):
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (TypeError, ValueError):
        return False


def _names(frames, file, function):
    return any(f["function"] == function and _same_file(f["file"], file) for f in frames)


def _python_line(frames):
    return f"{frames[0]['file']}:{frames[0]['line']} in {frames[0]['function']}" if frames else "(no Python frame)"


class Watcher:
    def __init__(self, config, folder, program):
        self.config = config
        self.folder = folder
        self.program = program
        self.read_to = {}    # log file -> bytes already looked at for finding lines
        self.consumed = {}   # log file -> findings already given to a test
        self.not_watched = {}  # pid -> why the checker could not watch it
        self.outside_tests = []  # findings logged when no test or module was running

    # --- reading the logs -------------------------------------------------------------------------------
    def _logs_with_new_findings(self):
        try:
            names = sorted(n for n in os.listdir(self.folder) if n.startswith("process-") and n.endswith(".jsonl"))
        except OSError:
            return []
        changed = []
        for name in names:
            path = os.path.join(self.folder, name)
            try:
                with open(path, "rb") as log:
                    log.seek(self.read_to.get(path, 0))
                    new = log.read()
            except OSError:
                continue
            whole = new[:new.rfind(b"\n") + 1]  # a line still being written is read next time
            self.read_to[path] = self.read_to.get(path, 0) + len(whole)
            # A log is read once it holds a whole line (its header): a process that has only made its file is
            # not yet a log the reader takes.
            if self.read_to[path] > 0 and (FINDING_RECORD in whole or path not in self.consumed):
                changed.append(path)
        return changed

    def new_findings(self):
        logs = self._logs_with_new_findings()
        if not logs or not self.program:
            return []
        done = subprocess.run([self.program, "findings", *logs], capture_output=True, text=True)
        if done.returncode != 0:
            return [{"unreadable": f"hazardlab findings exited {done.returncode}: {done.stderr.strip()}"}]
        found = []
        for process in json.loads(done.stdout)["processes"]:
            log = process["log"]
            if not process["watching"]:
                self.not_watched[process["pid"]] = process["not_watching_because"]
            start = self.consumed.get(log, 0)
            for f in process["findings"][start:]:
                f["pid"] = process["pid"]
                found.append(f)
            self.consumed[log] = len(process["findings"])
        return found

    # --- giving findings to tests ----------------------------------------------------------------------
    def _fixture_named(self, frames, item):
        info = getattr(item, "_fixtureinfo", None)
        for name, definitions in (getattr(info, "name2fixturedefs", None) or {}).items():
            for d in definitions:
                code = getattr(d.func, "__code__", None)
                if code is not None and _names(frames, code.co_filename, code.co_name):
                    return name
        return None

    def _where(self, finding, item):
        frames = finding.get("access_python", []) + finding.get("copy_python", [])
        test = getattr(item, "originalname", None) or item.name
        if _names(frames, str(item.path), test):
            return "in this test"
        fixture = self._fixture_named(frames, item)
        if fixture:
            return f"in its fixture {fixture!r}"
        return "while this test ran (its Python frames name neither the test nor a fixture of it)"

    @staticmethod
    def describe(finding, where):
        if "unreadable" in finding:
            return f"hazardlab: the checker's findings could not be read: {finding['unreadable']}"
        f = finding["finding"]
        # A race between device work names its later and earlier work where a host race names access and copy.
        # A kernel's hold on mapped pinned memory (`--kernels-own-mapped-memory`) names the kernel launched.
        first, second = ("later work", "earlier work") if "race" in f else ("host access", "copy issued")
        if "race" not in f and f.get("copy", {}).get("kernel"):
            second = "kernel launched"
        lines = [f"hazardlab check: {f['hazard']}: {f['kind']} (process {finding['pid']}, {where})",
                 f"    {f['what']}",
                 f"    {first}: {_python_line(finding.get('access_python', []))}"
                 + (" (the main thread's line: the access ran on a thread without Python, such as a PyTorch "
                    "intra-op worker)" if finding.get("access_python_of_main_thread") else ""),
                 f"    {second}: {_python_line(finding.get('copy_python', []))}",
                 f"    missing: {f['missing']}",
                 f"    fix: {f['fix']}",
                 f"    explained: hazardlab explain {f['hazard']}"]
        return "\n".join(lines)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        found = self.new_findings()
        if not found:
            return
        text = "\n\n".join(self.describe(f, self._where(f, item)) for f in found)
        if report.failed and report.longrepr is not None:
            text = f"{report.longrepr}\n\n{text}"
        report.outcome = "failed"
        report.longrepr = text
        if hasattr(report, "wasxfail"):  # an expected failure does not hide a finding
            del report.wasxfail

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        outcome = yield
        report = outcome.get_result()
        found = self.new_findings()
        if found:
            text = "\n\n".join(self.describe(f, f"while {collector.nodeid or 'the session'} was collected")
                               for f in found)
            report.outcome = "failed"
            report.longrepr = text

    def pytest_sessionfinish(self, session):
        self.outside_tests += self.new_findings()

    def pytest_terminal_summary(self, terminalreporter):
        write = terminalreporter.write_line
        if self.outside_tests:
            terminalreporter.section("hazardlab check: findings outside any test")
            for f in self.outside_tests:
                write(self.describe(f, "outside any test"))
        if self.not_watched:
            reasons = sorted(set(self.not_watched.values()))
            write(f"hazardlab check: {len(self.not_watched)} process(es) of this session were not watched: "
                  + "; ".join(reasons) + " (no test fails for it; the session's verdict says not-checked)")
        elif not self.consumed:
            write("hazardlab check: no process of this session started CUDA with the checker loaded, so nothing "
                  "was watched (no test fails for it; the session's verdict says not-checked)")
