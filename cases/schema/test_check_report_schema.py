#!/usr/bin/env python3
"""The JSON reports `hazardlab check` writes follow the shipped JSON Schema, and the schema is closed
around them. The reports are real ones: the launcher's own tests (checker/tests/test_check_launch.cpp)
run stand-in programs under the launcher and keep each JSON report they wrote as a test property, which
GoogleTest's --gtest_output=json hands over here. Every report validates; every object in one, given one
key more, does not; between them the reports give every verdict; and every key the schema names is
written by some report, so the schema and the writer (checker/launch/check_report.cpp) agree both ways.

Usage: test_check_report_schema.py LAUNCHER_TEST_PROGRAM SOURCE_DIR"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from closed_schema import check_documents, finish, keys_named, unwritten_keys, validator_for

VERDICTS = {"clean", "found", "not-checked", "sampled"}


def launcher_reports(program):
    """Each JSON report the launcher's tests wrote, by test name."""
    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp) / "tests.json"
        run = subprocess.run([program, "--gtest_filter=Launcher.*", f"--gtest_output=json:{output}"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"the launcher's tests failed (exit {run.returncode}):\n{run.stdout[-4000:]}")
        results = json.loads(output.read_text())
    reports = {}
    for suite in results["testsuites"]:
        for test in suite["testsuite"]:
            if "check_report" in test:
                reports[f"{suite['name']}.{test['name']}"] = json.loads(test["check_report"])
    return reports


def main() -> int:
    program, source = sys.argv[1], Path(sys.argv[2])
    schema = json.loads((source / "reports/schema/check-report.schema.json").read_text())
    validator = validator_for(schema)
    reports = launcher_reports(program)
    problems = []
    if len(reports) < len(VERDICTS):
        problems.append(f"only {len(reports)} report(s) from the launcher's tests")
    more, opened = check_documents(validator, reports)
    problems += more
    # Every verdict, and every key the schema names, is in some report: the schema is not wider than the writer.
    verdicts = {report.get("verdict") for report in reports.values()}
    for verdict in sorted(VERDICTS - verdicts):
        problems.append(f"no launcher test wrote a report with the verdict '{verdict}'")
    named = set()
    keys_named(schema, named)
    problems += unwritten_keys(named, reports.values(), "report of the launcher's tests")
    return finish(problems, f"{len(reports)} reports, verdicts {sorted(v for v in verdicts if v)}, {opened} objects "
                            f"each refused with a key more, {len(named)} keys named")


if __name__ == "__main__":
    sys.exit(main())
