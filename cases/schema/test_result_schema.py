#!/usr/bin/env python3
"""A variant result's observations follow the shipped JSON Schema, and the schema is closed around them:
every example result (result_example: every part of the observations, every optional figure) validates;
every object in its observations, given one key more, does not; and every key the schema names for the
observations is written by the example, so the schema and the writer (record/src/observations.cpp and
result.cpp) agree both ways.

Usage: test_result_schema.py EXAMPLE_PROGRAM SOURCE_DIR"""
import json
import subprocess
import sys
from pathlib import Path

from closed_schema import check_documents, finish, keys_named, unwritten_keys, validator_for


def main() -> int:
    program, source = sys.argv[1], Path(sys.argv[2])
    report_schema = json.loads((source / "reports/schema/gpu-report.schema.json").read_text())
    whole, observations = dict(report_schema), dict(report_schema)
    for schema, target in ((whole, "#/$defs/result"), (observations, "#/$defs/observations")):
        schema["$ref"] = target
        for key in ("required", "properties", "additionalProperties", "type", "title", "description"):
            schema.pop(key, None)
    results = json.loads(subprocess.run([program], check=True, capture_output=True, text=True).stdout)
    problems = [f"result {i}: {e.json_path}: {e.message}" for i, r in enumerate(results)
                for e in validator_for(whole).iter_errors(r)]
    more, opened = check_documents(validator_for(observations),
                                   {f"result {i} ({r['variant']}) observations": r["observations"]
                                    for i, r in enumerate(results)})
    problems += more
    named = set()
    keys_named(report_schema["$defs"]["observations"], named)
    problems += unwritten_keys(named, [r["observations"] for r in results], "example result's observations")
    return finish(problems, f"{len(results)} results, {opened} objects each refused with a key more, "
                            f"{len(named)} keys named")


if __name__ == "__main__":
    sys.exit(main())
