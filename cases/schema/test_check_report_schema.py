#!/usr/bin/env python3
"""The JSON reports `hazardlab check` writes follow the shipped JSON Schema, and the schema is closed
around them. The reports are real ones: the launcher's own tests (checker/tests/test_check_launch.cpp)
run stand-in programs under the launcher and keep each JSON report they wrote as a test property, which
GoogleTest's --gtest_output=json hands over here. Every report validates; every object in one, given one
key more, does not; between them the reports give every verdict; and every key the schema names is
written by some report, so the schema and the writer (checker/launch/check_report.cpp) agree both ways.

Usage: test_check_report_schema.py LAUNCHER_TEST_PROGRAM SOURCE_DIR"""
import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import jsonschema
except ImportError:
    # A GPU machine may lack it; CI installs it (python3-jsonschema), and there its absence is a failure.
    print("SKIP: the Python module jsonschema is not installed (Debian: python3-jsonschema)")
    sys.exit(1 if os.environ.get("CI") else 77)

VERDICTS = {"clean", "found", "not-checked", "sampled"}


def objects(node, path="$"):
    """Every JSON object in node, with its path."""
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from objects(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from objects(v, f"{path}[{i}]")


def keys_named(schema_node, found):
    if isinstance(schema_node, dict):
        found.update(schema_node.get("properties", {}).keys())
        for v in schema_node.values():
            keys_named(v, found)
    elif isinstance(schema_node, list):
        for v in schema_node:
            keys_named(v, found)


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
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    reports = launcher_reports(program)
    problems = []
    if len(reports) < len(VERDICTS):
        problems.append(f"only {len(reports)} report(s) from the launcher's tests")
    for name, report in reports.items():
        for error in validator.iter_errors(report):
            problems.append(f"{name}: {error.json_path}: {error.message}")
    # Closed: one key more anywhere in a report is refused.
    opened = 0
    for name, report in reports.items():
        for path, _ in list(objects(report)):
            broken = copy.deepcopy(report)
            target = [obj for p, obj in objects(broken) if p == path][0]
            target["a_key_nobody_declared"] = 1
            if validator.is_valid(broken):
                problems.append(f"{name}: {path} takes a key the schema does not name: it is open")
            opened += 1
    # Every verdict, and every key the schema names, is in some report: the schema is not wider than the writer.
    verdicts = {report.get("verdict") for report in reports.values()}
    for verdict in sorted(VERDICTS - verdicts):
        problems.append(f"no launcher test wrote a report with the verdict '{verdict}'")
    written, named = set(), set()
    for report in reports.values():
        for _, obj in objects(report):
            written.update(obj.keys())
    keys_named(schema, named)
    for key in sorted(named - written):
        problems.append(f"the schema names '{key}', which no report of the launcher's tests writes")
    for p in problems:
        print(p)
    print(f"{len(reports)} reports, verdicts {sorted(v for v in verdicts if v)}, {opened} objects each refused "
          f"with a key more, {len(named)} keys named; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
