"""pytest --hazardlab: a test suite run under `hazardlab check`, each finding failing the test it happened in.

The checker must be loaded before CUDA starts, so `pytest --hazardlab` starts the session again under
`hazardlab check` (with the same arguments, less the report options: the checker writes the reports) unless it
already runs under it. In the checked session, the injected library appends each finding to its process's log as
it happens (the folder HL_CHECK_LOG_FOLDER names, one file per process, DataLoader workers included). After each
phase of each test (setup, call, teardown) and after each module is collected, this plugin reads what is new
there (`hazardlab findings` gives each finding with its sentences) and gives each new finding to:

- the test whose Python frames it carries (the access's or the copy's), in the phase it happened in;
- else a fixture of that test whose frames it carries: the test's setup or teardown errors with it;
- else the test that was running when it was logged (a DataLoader worker's access, a library's frames);
- a finding logged while a module was collected: that module's collection errors with it.

The test fails with the finding in pytest's own failure report (and so in --junitxml's failure element):
the hazard, the access's and the copy's Python lines, the missing synchronization and the fix. Other tests
pass or fail as they would. The session's verdict and report files are `hazardlab check`'s own; where the
checker could not watch (no GPU, CUPTI held by a profiler), the summary says so once and no test fails for it.
"""

import os
import shutil
import subprocess
import sys

import pytest
from hazardlab_pytest_findings import Watcher
from hazardlab_pytest_options import (Once, arguments_without_reports, checker_options, refuse as _refuse,
                                      refuse_blank, refuse_repeated)

# Set by `hazardlab check` for the program it runs: the folder of the processes' logs.
LOG_FOLDER = "HL_CHECK_LOG_FOLDER"
# Set by `hazardlab check` for the program it runs beside LOG_FOLDER: CUDA's injection, naming the checker's library.
INJECTION = "CUDA_INJECTION64_PATH"
INJECTED_LIBRARY = "libhazardlab-check-inject.so"
# Set for a session that only judges the command line (see _judge_the_command_line): it runs no test.
JUDGING = "HAZARDLAB_PYTEST_JUDGING_THE_COMMAND_LINE"


def pytest_addoption(parser):
    group = parser.getgroup("hazardlab", "hazardlab check: host accesses to memory an asynchronous copy still owned, and races between streams")
    group.addoption("--hazardlab", action="store_true",
                    help="run the session under hazardlab check: a test fails with each finding it carries")
    group.addoption("--hazardlab-sarif", metavar="FILE", action=Once,
                    help="also write the findings as SARIF 2.1.0 to FILE")
    group.addoption("--hazardlab-json", metavar="FILE", action=Once,
                    help="also write the session's report as JSON to FILE")
    group.addoption("--hazardlab-html", metavar="FILE", action=Once,
                    help="also write the session's report as HTML to FILE")
    group.addoption("--hazardlab-option", metavar="OPTION", action="append", default=[],
                    help="another hazardlab check option, as one word: --hazardlab-option=--every-occurrence")
    group.addoption("--hazardlab-program", metavar="PATH", action=Once,
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


# Each option of this plugin's but --hazardlab, by its attribute: none of them means anything without --hazardlab.
_NEEDS_HAZARDLAB = {"hazardlab_sarif": "--hazardlab-sarif", "hazardlab_json": "--hazardlab-json",
                    "hazardlab_html": "--hazardlab-html", "hazardlab_option": "--hazardlab-option",
                    "hazardlab_program": "--hazardlab-program"}


def _refuse_without_hazardlab(namespace):
    """The plugin's options name what a checked session does: without --hazardlab the session is not checked, and
    they would do nothing without a word."""
    given = [flag for attribute, flag in _NEEDS_HAZARDLAB.items()
             if getattr(namespace, attribute, None) not in (None, [])]
    if given:
        _refuse(f"{', '.join(given)} given without --hazardlab: the session would not be checked and "
                f"{'they' if len(given) > 1 else 'it'} would do nothing; add --hazardlab, or leave "
                f"{'them' if len(given) > 1 else 'it'} out")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # Before the output capture starts and before any conftest imports a CUDA library: the session starts
    # again under the checker, the same arguments (less the reports, which the checker writes) and interpreter.
    namespace = early_config.known_args_namespace
    if JUDGING in os.environ:
        yield
        return
    if LOG_FOLDER not in os.environ:
        refuse_repeated(namespace)
    if not getattr(namespace, "hazardlab", False):
        _refuse_without_hazardlab(namespace)
    elif LOG_FOLDER in os.environ:
        _refuse_a_log_folder_not_the_checkers()
    else:
        refuse_blank(namespace)
        program = _hazardlab_program(namespace.hazardlab_program)
        if not program or not os.access(program, os.X_OK) or not os.path.isfile(program):
            _refuse(f"the hazardlab program was not found ({namespace.hazardlab_program or 'on PATH'}); "
                    "give --hazardlab-program=PATH")
        _refuse_a_program_that_is_not_hazardlab(program)
        command = [program, "check", *checker_options(namespace), "--", sys.executable, "-m", "pytest",
                   *arguments_without_reports(list(early_config.invocation_params.args))]
        _judge_the_command_line(list(early_config.invocation_params.args))
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            os.execv(program, command)
        except OSError as e:
            _refuse(f"{program} could not be started: {e.strerror}")
    yield


def _judge_the_command_line(args):
    """Only the early arguments are parsed yet, and the rest are judged after the conftests load, which must wait
    for the checker: a misspelt option would end the restarted session with pytest's usage error, which hazardlab
    check without a GPU turns into its not-checked status. So a session that runs no test (the same arguments,
    the conftests loaded) judges them first, and its usage error (4, with pytest's message) is this session's."""
    env = dict(os.environ, **{JUDGING: "1"})
    judged = subprocess.run([sys.executable, "-m", "pytest", *args], env=env, capture_output=True, text=True)
    if judged.returncode != 0:
        sys.stdout.write(judged.stdout)
        sys.stderr.write(judged.stderr)
        raise SystemExit(judged.returncode)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    # The judging session: the command line was accepted whole, and nothing more is done.
    if JUDGING in os.environ:
        return 0
    return None


def _refuse_a_log_folder_not_the_checkers():
    """HL_CHECK_LOG_FOLDER says the session already runs under `hazardlab check`, which sets it beside CUDA's injection
    of its library: set by hand (or left over), the session would run unchecked with nothing said."""
    folder, injected = os.environ[LOG_FOLDER], os.environ.get(INJECTION, "")
    if os.path.basename(injected) != INJECTED_LIBRARY or not os.path.isdir(folder):
        _refuse(f"{LOG_FOLDER}='{folder}' is set, but this session is not run by hazardlab check ({INJECTION}="
                f"'{injected}' does not name {INJECTED_LIBRARY}, or the folder is missing): unset {LOG_FOLDER}, and "
                "pytest --hazardlab starts the session under the checker")


def _refuse_a_program_that_is_not_hazardlab(program):
    """A program that is not hazardlab (--hazardlab-program=/bin/true) would run instead of the session, and end it
    with no test run and nothing said: it must describe `hazardlab check` when asked."""
    try:
        said = subprocess.run([program, "check", "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        _refuse(f"--hazardlab-program '{program}' could not be asked what it is ({e}); expected the hazardlab program")
    if said.returncode != 0 or not said.stdout.startswith("hazardlab check"):
        _refuse(f"--hazardlab-program '{program}' is not hazardlab (`{program} check --help` does not describe "
                "hazardlab check); expected the hazardlab program")


def pytest_configure(config):
    if config.getoption("hazardlab") and LOG_FOLDER in os.environ:
        program = _hazardlab_program(config.getoption("hazardlab_program"))
        config.pluginmanager.register(Watcher(config, os.environ[LOG_FOLDER], program), "hazardlab-watcher")
