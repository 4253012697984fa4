"""What every schema test here checks of a JSON Schema and the documents a writer produced: each
document validates, the schema is closed around them (every object, given one key more, is refused),
and every key the schema names is written by some document, so the schema and the writer agree both
ways. Shared by test_measurement_schema.py and test_check_report_schema.py."""
import copy
import os
import sys

try:
    import jsonschema
except ImportError:
    # A GPU machine may lack it; CI installs it (python3-jsonschema), and there its absence is a failure.
    print("SKIP: the Python module jsonschema is not installed (Debian: python3-jsonschema)")
    sys.exit(1 if os.environ.get("CI") else 77)


def validator_for(schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


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
    """Every property name the schema (or a part of it) declares, into the set found."""
    if isinstance(schema_node, dict):
        found.update(schema_node.get("properties", {}).keys())
        for v in schema_node.values():
            keys_named(v, found)
    elif isinstance(schema_node, list):
        for v in schema_node:
            keys_named(v, found)


def keys_written(documents):
    """Every key any object of the documents holds."""
    found = set()
    for document in documents:
        for _, obj in objects(document):
            found.update(obj.keys())
    return found


def check_documents(validator, documents):
    """The documents (by name) against the schema: (problems, how many objects were tried with a key more)."""
    problems = []
    for name, document in documents.items():
        for error in validator.iter_errors(document):
            problems.append(f"{name}: {error.json_path}: {error.message}")
    opened = 0
    for name, document in documents.items():
        for path, _ in list(objects(document)):
            broken = copy.deepcopy(document)
            target = [obj for p, obj in objects(broken) if p == path][0]
            target["a_key_nobody_declared"] = 1
            if validator.is_valid(broken):
                problems.append(f"{name}: {path} takes a key the schema does not name: it is open")
            opened += 1
    return problems, opened


def unwritten_keys(named, documents, what):
    """A problem for each key the schema names that no document writes."""
    written = keys_written(documents)
    return [f"the schema names '{key}', which no {what} writes" for key in sorted(named - written)]


def finish(problems, summary):
    """Prints each problem and the summary line; the exit status: 1 when anything is wrong."""
    for p in problems:
        print(p)
    print(f"{summary}; {len(problems)} problem(s)")
    return 1 if problems else 0
