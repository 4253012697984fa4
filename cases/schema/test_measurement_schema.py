#!/usr/bin/env python3
"""The measurement records hazardlab-perf writes follow the shipped JSON Schema, and the schema is
closed around them: every example record (measurement_example: every group, every optional figure)
validates; every object in it, given one key more, does not; and every key the schema names for a
measurement is written by the example, so the schema and the writer (record/src/measurements.cpp)
agree both ways.

Usage: test_measurement_schema.py EXAMPLE_PROGRAM SOURCE_DIR"""
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

try:
    import jsonschema
except ImportError:
    # A GPU machine may lack it; CI installs it (python3-jsonschema), and there its absence is a failure.
    print("SKIP: the Python module jsonschema is not installed (Debian: python3-jsonschema)")
    sys.exit(1 if os.environ.get("CI") else 77)

MEASUREMENT_DEFS = ("perf_record", "check", "measurements", "spread", "bandwidth_point", "bidirectional",
                    "all_gpus_at_once", "reference", "overlap", "comparison", "soak")


def objects(node, path="$"):
    """Every JSON object in node, with its path."""
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from objects(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from objects(v, f"{path}[{i}]")


def keys_written(node, found):
    for _, obj in objects(node):
        found.update(obj.keys())


def keys_named(schema_node, found):
    if isinstance(schema_node, dict):
        found.update(schema_node.get("properties", {}).keys())
        for v in schema_node.values():
            keys_named(v, found)
    elif isinstance(schema_node, list):
        for v in schema_node:
            keys_named(v, found)


def main() -> int:
    program, source = sys.argv[1], Path(sys.argv[2])
    report_schema = json.loads((source / "reports/schema/gpu-report.schema.json").read_text())
    schema = dict(report_schema)
    schema["$ref"] = "#/$defs/perf_record"
    for key in ("required", "properties", "additionalProperties", "type", "title", "description"):
        schema.pop(key, None)
    validator = jsonschema.Draft202012Validator(schema)
    printed = subprocess.run([program], check=True, capture_output=True, text=True).stdout
    records = json.loads(printed)
    problems = []
    for record in records:
        for error in validator.iter_errors(record):
            problems.append(f"{record['part']}: {error.json_path}: {error.message}")
    # Closed: one key more anywhere in a record is refused.
    opened = 0
    for record in records:
        for path, _ in list(objects(record)):
            broken = copy.deepcopy(record)
            target = [obj for p, obj in objects(broken) if p == path][0]
            target["a_key_nobody_declared"] = 1
            if validator.is_valid(broken):
                problems.append(f"{record['part']}: {path} takes a key the schema does not name: it is open")
            opened += 1
    # Both ways: every key the schema names for a measurement is written.
    written, named = set(), set()
    keys_written(records, written)
    for name in MEASUREMENT_DEFS:
        keys_named(report_schema["$defs"][name], named)
    for key in sorted(named - written):
        problems.append(f"the schema names '{key}', which no measurement record writes")
    for p in problems:
        print(p)
    print(f"{len(records)} records, {opened} objects each refused with a key more, {len(named)} keys named; "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
