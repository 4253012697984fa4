"""pytest --hazardlab's options, checked before the session starts again under `hazardlab check`: each given once,
each --hazardlab-option one of hazardlab check's options (once, its value as hazardlab reads it), and each report
file one that can be written and that is none of the session's own files (an existing .py file, or a file under
the paths pytest was given): the session would run, then fail to write its report, or write it over a test.
Bad input ends the session with exit 2 and one line naming it."""

import argparse
import json
import os
import sys

# How hazardlab check marks its reports (checker/launch/report_files.hpp and check_report.hpp).
REPORT_MARKER_LINE = "<!-- A report written by hazardlab check. -->"
CHECK_REPORT_SCHEMA = "hazardlab.check-report"


def refuse(text):
    sys.stderr.write(f"pytest --hazardlab: {text}\n")
    raise SystemExit(2)


class Once(argparse.Action):
    """Stores the option's value and notes a second one (refused before the session starts, with exit 2): with
    `--hazardlab-json=a.json --hazardlab-json=b.json`, a.json would be dropped without a word."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_hazardlab_given", {})
        given.setdefault(self.dest, []).append(f"{option_string}={values}")
        setattr(namespace, self.dest, values)


def refuse_repeated(namespace):
    for given in getattr(namespace, "_hazardlab_given", {}).values():
        if len(given) > 1:
            refuse(f"{given[0].partition('=')[0]} is given twice ({' and '.join(given)}); give it once")


def refuse_blank(namespace):
    """A blank value (--hazardlab-program=) is no value: taken as unset, the session would run PATH's hazardlab, or
    write no report, without a word."""
    for given in getattr(namespace, "_hazardlab_given", {}).values():
        flag, _, value = given[0].partition("=")
        if not value.strip():
            wanted = "the hazardlab program's path" if flag == "--hazardlab-program" else "a file to write"
            refuse(f"{flag} was given a blank value ('{value}'): expected {wanted}")


# The hazardlab check options --hazardlab-option may give (every one `hazardlab check --help` lists but --help and
# the three below: the plugin's test compares them), and what each takes: nothing (a flag), a whole number from low
# to high, one of some words, or a path. --json, --sarif and --html have options of their own here.
CHECK_OPTIONS = {
    "--every-occurrence": None,
    "--kernels-own-mapped-memory": None,
    "--graph-nodes": None,
    "--ptx-footprints": None,
    "--managed-memory": None,
    "--sample": (1, 1_000_000),
    "--error-exitcode": (1, 255),
    "--unchecked-exitcode": (1, 255),
    "--protection": ("auto", "keys", "range-keys", "mprotect"),
    "--markdown": "FILE",
    "--source-root": "FOLDER",
}
# What hazardlab check takes as an on/off flag's value (tools/cli_checks.hpp, flag_value).
FLAG_VALUES = ("true", "false", "1", "0")
OWN_OPTIONS = {"--json": "--hazardlab-json", "--sarif": "--hazardlab-sarif", "--html": "--hazardlab-html"}


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


def checked_option(option):
    """One --hazardlab-option, as hazardlab check would take it, or a refusal naming it."""
    example = "such as --hazardlab-option=--every-occurrence or --hazardlab-option=--sample=8"
    if not isinstance(option, str) or option in ("", "--"):  # pytest's parser hands "--" on as a list
        shown = repr(option) if isinstance(option, str) else "'--'"
        refuse(f"--hazardlab-option was given {shown}: expected one hazardlab check option, {example}")
    name, has_value, value = option.partition("=")
    if name in OWN_OPTIONS:
        refuse(f"--hazardlab-option={option}: give {OWN_OPTIONS[name]}=FILE instead")
    if name not in CHECK_OPTIONS:
        refuse(f"--hazardlab-option={option!r}: expected one hazardlab check option, {example}; the options are "
               + ", ".join(CHECK_OPTIONS))
    takes = CHECK_OPTIONS[name]
    if takes is None:  # a flag: alone, or on or off in the same word, as hazardlab check takes it
        if has_value and value not in FLAG_VALUES:
            refuse(f"--hazardlab-option={option}: '{value}' is not allowed; {name} takes true or false (or 1 or 0) "
                   f"in the same word, or stands alone")
        return option
    if not value:
        refuse(f"--hazardlab-option={option}: {name} needs a value, in the same word: "
               f"--hazardlab-option={name}=VALUE")
    if isinstance(takes, tuple) and isinstance(takes[0], int):
        try:
            return f"{name}={whole_number(value, *takes)}"
        except ValueError as e:
            refuse(f"--hazardlab-option={option}: '{value}' is not allowed; {e}")
    if isinstance(takes, tuple) and value not in takes:
        refuse(f"--hazardlab-option={option}: '{value}' is not allowed; expected one of {', '.join(takes)}")
    return f"{name}={value}"


def _test_paths(namespace):
    """The files and folders pytest was given (a node id's file: `test_x.py::test_a`), as real paths."""
    given = getattr(namespace, "file_or_dir", None) or []
    return [os.path.realpath(path.split("::")[0]) for path in given if os.path.exists(path.split("::")[0])]


def _written_by_check(path):
    """Whether the file is a report hazardlab check wrote (as checker/launch/report_files.cpp tells one): a
    Markdown or HTML report's first line is its marker, a JSON report names its schema, a SARIF log its tool."""
    try:
        with open(path, "rb") as f:
            contents = f.read()
    except OSError:
        return False
    if contents.startswith(REPORT_MARKER_LINE.encode() + b"\n"):
        return True
    try:
        document = json.loads(contents)
    except ValueError:
        return False
    if not isinstance(document, dict):
        return False
    if document.get("schema") == CHECK_REPORT_SCHEMA:
        return True
    runs = document.get("runs")
    driver = runs[0].get("tool", {}) if isinstance(runs, list) and runs and isinstance(runs[0], dict) else {}
    driver = driver.get("driver", {}) if isinstance(driver, dict) else {}
    return isinstance(driver, dict) and driver.get("name") == "hazardlab"


def _refuse_a_report_path(option, path, test_paths):
    """A report file hazardlab check is to write: never one of the session's own files, and one it can write (its
    folder exists, it is no folder or device, this user may create or replace it), checked before the session."""
    shown = f"{option} '{path}'"
    if not path.strip():
        refuse(f"{shown}: expected a file to write, not a blank")
    real = os.path.realpath(path)
    if os.path.lexists(path):
        if os.path.isdir(path):
            refuse(f"{shown} is a folder; expected a file to write")
        if not os.path.isfile(path):
            refuse(f"{shown} is not a plain file (a device, a pipe, or a link to nothing); expected a file to write")
        # A report an earlier session wrote under the tests' folder is written again: it is no test of the session.
        own = path.endswith(".py") or any(real == t or real.startswith(t + os.sep) for t in test_paths)
        if own and not _written_by_check(path):
            refuse(f"{shown} is a file of the session's own (a Python source, or one under the paths pytest was "
                   "given); the report would replace it: name a new file")
        if not os.access(path, os.W_OK):
            refuse(f"{shown} may not be written by this user")
        return real
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        refuse(f"{shown}: its folder {folder} does not exist")
    try:  # the file is made and taken away again: only a write shows that a folder takes a new file (/proc)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        os.remove(path)
    except OSError as e:
        refuse(f"{shown} cannot be written: {e.strerror}")
    return real


# The plugin's options that name a report file, each taking its value in the same word (=FILE) or the next one.
REPORT_OPTIONS = ("--hazardlab-json", "--hazardlab-sarif", "--hazardlab-html")


def _names_a_report(option_value):
    return option_value.partition("=")[0] == "--markdown"


def arguments_without_reports(args):
    """The session's arguments for the session restarted under hazardlab check, less the report options: the
    restarted session writes no report (hazardlab check does, from its own options), and hazardlab check refuses a
    report file that the program's arguments name."""
    kept, i = [], 0
    while i < len(args):
        word = args[i]
        name, has_value, value = word.partition("=")
        if has_value and (name in REPORT_OPTIONS or (name == "--hazardlab-option" and _names_a_report(value))):
            i += 1
        elif word in REPORT_OPTIONS or (word == "--hazardlab-option" and i + 1 < len(args)
                                        and _names_a_report(args[i + 1])):
            i += 2
        else:
            kept.append(word)
            i += 1
    return kept


def checker_options(namespace):
    """hazardlab check's options for the session, each checked: exit 2 naming a slip, before the session."""
    refuse_repeated(namespace)
    options, reports, names = [], {}, {}
    for flag, own in (("--sarif", "--hazardlab-sarif"), ("--json", "--hazardlab-json"), ("--html", "--hazardlab-html")):
        value = getattr(namespace, own[2:].replace("-", "_"))
        if value is not None:
            options += [flag, value]
            reports[own] = value
    for option in namespace.hazardlab_option:
        checked = checked_option(option)
        name = checked.partition("=")[0]
        if name in names:
            refuse(f"--hazardlab-option={option}: {name} is given twice (--hazardlab-option={names[name]} before "
                   "it); give it once")
        names[name] = option
        if name == "--markdown":
            reports["--hazardlab-option=--markdown"] = checked.partition("=")[2]
        options.append(checked)
    test_paths, written = _test_paths(namespace), {}
    for option, path in reports.items():
        real = _refuse_a_report_path(option, path, test_paths)
        if real in written:
            refuse(f"{option} '{path}' is the same file as {written[real]}; each report needs a file of its own")
        written[real] = option
    return options
