"""pytest --hazardlab: a test suite run under `hazardlab check`, each finding failing the test it happened in.

The checker must be loaded before CUDA starts, so `pytest --hazardlab` starts the session again under
`hazardlab check` (with the same arguments) unless it already runs under it. In the checked session, the
injected library appends each finding to its process's log as it happens (the folder HL_CHECK_LOG_FOLDER
names, one file per process, DataLoader workers included). After each phase of each test (setup, call,
teardown) and after each module is collected, this plugin reads what is new there (`hazardlab findings`
gives each finding with its sentences) and gives each new finding to:

- the test whose Python frames it carries (the access's or the copy's), in the phase it happened in;
- else a fixture of that test whose frames it carries: the test's setup or teardown errors with it;
- else the test that was running when it was logged (a DataLoader worker's access, a library's frames);
- a finding logged while a module was collected: that module's collection errors with it.

The test fails with the finding in pytest's own failure report (and so in --junitxml's failure element):
the hazard, the access's and the copy's Python lines, the missing synchronization and the fix. Other tests
pass or fail as they would. The session's verdict and report files are `hazardlab check`'s own; where the
checker could not watch (no GPU, CUPTI held by a profiler), the summary says so once and no test fails for it.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

# Set by `hazardlab check` for the program it runs: the folder of the processes' logs.
LOG_FOLDER = "HL_CHECK_LOG_FOLDER"
FINDING_RECORD = b'"type":"finding"'  # how a finding's line in a process log is told apart cheaply


def pytest_addoption(parser):
    group = parser.getgroup("hazardlab", "hazardlab check: host accesses to memory an asynchronous copy still owned, and races between streams")
    group.addoption("--hazardlab", action="store_true",
                    help="run the session under hazardlab check: a test fails with each finding it carries")
    group.addoption("--hazardlab-sarif", metavar="FILE", help="also write the findings as SARIF 2.1.0 to FILE")
    group.addoption("--hazardlab-json", metavar="FILE", help="also write the session's report as JSON to FILE")
    group.addoption("--hazardlab-html", metavar="FILE", help="also write the session's report as HTML to FILE")
    group.addoption("--hazardlab-option", metavar="OPTION", action="append", default=[],
                    help="another hazardlab check option, as one word: --hazardlab-option=--every-occurrence")
    group.addoption("--hazardlab-program", metavar="PATH",
                    help="the hazardlab program (default: the one installed beside this plugin, else on PATH)")


def _hazardlab_program(option):
    if option:
        return option
    # Installed as <prefix>/lib/python3/dist-packages/hazardlab_pytest.py beside <prefix>/bin/hazardlab.
    here = os.path.dirname(os.path.abspath(__file__))
    beside = os.path.normpath(os.path.join(here, "..", "..", "..", "bin", "hazardlab"))
    if os.access(beside, os.X_OK) and os.path.isfile(beside):
        return beside
    return shutil.which("hazardlab")


def _refuse(text):
    sys.stderr.write(f"pytest --hazardlab: {text}\n")
    raise SystemExit(2)


# The hazardlab check options --hazardlab-option may give, and what each takes: nothing (a flag), a whole number
# from low to high, one of some words, or a path. --json, --sarif and --html have options of their own here.
_CHECK_OPTIONS = {
    "--every-occurrence": None,
    "--sample": (1, 1_000_000),
    "--error-exitcode": (1, 255),
    "--unchecked-exitcode": (1, 255),
    "--protection": ("auto", "keys", "range-keys", "mprotect"),
    "--markdown": "FILE",
    "--source-root": "FOLDER",
}
_OWN_OPTIONS = {"--json": "--hazardlab-json", "--sarif": "--hazardlab-sarif", "--html": "--hazardlab-html"}
# Each option of this plugin's but --hazardlab, by its attribute: none of them means anything without --hazardlab.
_NEEDS_HAZARDLAB = {"hazardlab_sarif": "--hazardlab-sarif", "hazardlab_json": "--hazardlab-json",
                    "hazardlab_html": "--hazardlab-html", "hazardlab_option": "--hazardlab-option",
                    "hazardlab_program": "--hazardlab-program"}


def whole_number(text, low, high):
    """The number `text` names, read as hazardlab reads every number (hazardlab/strict_number.hpp): decimal digits
    only ("077" is 77, never octal), from `low` to `high`; else ValueError saying what is allowed."""
    expected = f"expected a whole number from {low} to {high}"
    if not text or any(c not in "0123456789" for c in text):
        raise ValueError(f"{expected} (digits only: no sign, spaces, point or unit)")
    value = int(text, 10)
    if not low <= value <= high:
        raise ValueError(expected)
    return value


def _checked_option(option):
    """One --hazardlab-option, as hazardlab check would take it, or a refusal naming it."""
    example = "such as --hazardlab-option=--every-occurrence or --hazardlab-option=--sample=8"
    if not isinstance(option, str) or option in ("", "--"):  # pytest's parser hands "--" on as a list
        shown = repr(option) if isinstance(option, str) else "'--'"
        _refuse(f"--hazardlab-option was given {shown}: expected one hazardlab check option, {example}")
    name, has_value, value = option.partition("=")
    if name in _OWN_OPTIONS:
        _refuse(f"--hazardlab-option={option}: give {_OWN_OPTIONS[name]}=FILE instead")
    if name not in _CHECK_OPTIONS:
        _refuse(f"--hazardlab-option={option!r}: expected one hazardlab check option, {example}; the options are "
                + ", ".join(_CHECK_OPTIONS))
    takes = _CHECK_OPTIONS[name]
    if takes is None:
        if has_value:
            _refuse(f"--hazardlab-option={option}: {name} takes no value")
        return name
    if not value:
        _refuse(f"--hazardlab-option={option}: {name} needs a value, in the same word: "
                f"--hazardlab-option={name}=VALUE")
    if isinstance(takes, tuple) and isinstance(takes[0], int):
        try:
            return f"{name}={whole_number(value, *takes)}"
        except ValueError as e:
            _refuse(f"--hazardlab-option={option}: '{value}' is not allowed; {e}")
    if isinstance(takes, tuple) and value not in takes:
        _refuse(f"--hazardlab-option={option}: '{value}' is not allowed; expected one of {', '.join(takes)}")
    return f"{name}={value}"


def _checker_options(namespace):
    options = []
    for flag, value in (("--sarif", namespace.hazardlab_sarif), ("--json", namespace.hazardlab_json),
                        ("--html", namespace.hazardlab_html)):
        if value is not None:
            options += [flag, value]
    for option in namespace.hazardlab_option:
        options.append(_checked_option(option))
    return options


def _refuse_without_hazardlab(namespace):
    """The plugin's options name what a checked session does: without --hazardlab the session is not checked, and
    they would do nothing without a word."""
    given = [flag for attribute, flag in _NEEDS_HAZARDLAB.items() if getattr(namespace, attribute, None)]
    if given:
        _refuse(f"{', '.join(given)} given without --hazardlab: the session would not be checked and "
                f"{'they' if len(given) > 1 else 'it'} would do nothing; add --hazardlab, or leave "
                f"{'them' if len(given) > 1 else 'it'} out")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # Before the output capture starts and before any conftest imports a CUDA library: the session starts
    # again under the checker, the same arguments and the same interpreter.
    namespace = early_config.known_args_namespace
    if not getattr(namespace, "hazardlab", False):
        _refuse_without_hazardlab(namespace)
    elif LOG_FOLDER not in os.environ:
        program = _hazardlab_program(namespace.hazardlab_program)
        if not program or not os.access(program, os.X_OK):
            _refuse(f"the hazardlab program was not found ({namespace.hazardlab_program or 'on PATH'}); "
                    "give --hazardlab-program=PATH")
        command = [program, "check", *_checker_options(namespace), "--", sys.executable, "-m", "pytest",
                   *early_config.invocation_params.args]
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            os.execv(program, command)
        except OSError as e:
            _refuse(f"{program} could not be started: {e.strerror}")
    yield


def pytest_configure(config):
    if config.getoption("hazardlab") and LOG_FOLDER in os.environ:
        config.pluginmanager.register(_Watcher(config, os.environ[LOG_FOLDER]), "hazardlab-watcher")


def _same_file(a, b):
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (TypeError, ValueError):
        return False


def _names(frames, file, function):
    return any(f["function"] == function and _same_file(f["file"], file) for f in frames)


def _python_line(frames):
    return f"{frames[0]['file']}:{frames[0]['line']} in {frames[0]['function']}" if frames else "(no Python frame)"


class _Watcher:
    def __init__(self, config, folder):
        self.config = config
        self.folder = folder
        self.program = _hazardlab_program(config.getoption("hazardlab_program"))
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
