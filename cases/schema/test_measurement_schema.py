#!/usr/bin/env python3
"""The measurement records hazardlab-perf writes follow the shipped JSON Schema, and the schema is
closed around them: every example record (measurement_example: every group, every optional figure)
validates; every object in it, given one key more, does not; and every key the schema names for a
measurement is written by the example, so the schema and the writers (record/src/measurement*.cpp)
agree both ways.

Usage: test_measurement_schema.py EXAMPLE_PROGRAM SOURCE_DIR"""
import json
import subprocess
import sys
from pathlib import Path

from closed_schema import check_documents, finish, keys_named, unwritten_keys, validator_for

MEASUREMENT_DEFS = ("perf_record", "check", "measurements", "spread", "bandwidth_point", "bidirectional",
                    "all_gpus_at_once", "reference", "overlap", "comparison", "soak")


def main() -> int:
    program, source = sys.argv[1], Path(sys.argv[2])
    report_schema = json.loads((source / "reports/schema/gpu-report.schema.json").read_text())
    schema = dict(report_schema)
    schema["$ref"] = "#/$defs/perf_record"
    for key in ("required", "properties", "additionalProperties", "type", "title", "description"):
        schema.pop(key, None)
    validator = validator_for(schema)
    printed = subprocess.run([program], check=True, capture_output=True, text=True).stdout
    records = json.loads(printed)
    problems, opened = check_documents(validator, {f"record {i} ({r['part']})": r for i, r in enumerate(records)})
    # Both ways: every key the schema names for a measurement is written.
    named = set()
    for name in MEASUREMENT_DEFS:
        keys_named(report_schema["$defs"][name], named)
    problems += unwritten_keys(named, records, "measurement record")
    return finish(problems, f"{len(records)} records, {opened} objects each refused with a key more, "
                            f"{len(named)} keys named")


if __name__ == "__main__":
    sys.exit(main())
