#!/usr/bin/env python3
"""Every surface joins the model: each command of hazardlab's command table (tools/hazardlab.cpp, kCommands), each
program tools/CMakeLists.txt builds, each file under tools/'s folders (its scripts and their configuration), and each
Python driver under checker/ that a README documents (a program with a command line, or the pytest plugin) has its
row in cases/scenarios/surfaces.py, the table the refusal rules (test_refusal_rules.py) and the file-system model
(test_file_system_model.py) enumerate. A row has at least one refusal, and a model kind the file-system model runs
or, for a surface that writes nothing of its own choosing, none; no row names a surface that is gone.

Usage: test_surfaces.py SOURCE_DIR
       test_surfaces.py --self-test SOURCE_DIR   (a new command, script or driver left out must fail it)"""
import importlib.util
import re
import shutil
import sys
import tempfile
from pathlib import Path

NOT_SURFACES = ("CMakeLists.txt",)  # under tools/'s folders: the build's, not a user's
C_SOURCES = (".cpp", ".hpp")


def commands(root: Path) -> list[str]:
    text = (root / "tools" / "hazardlab.cpp").read_text()
    start = text.find("const Command kCommands[] = {")
    if start < 0:
        raise SystemExit("tools/hazardlab.cpp: no command table (const Command kCommands[] = {)")
    table = text[start:text.find("\n};", start)]
    return [f"hazardlab {name}" for name in re.findall(r'^\s*\{"([a-z0-9-]+)",', table, re.M)]


def programs(root: Path) -> list[str]:
    """The programs tools/ builds, besides hazardlab itself (whose commands are the table's)."""
    text = (root / "tools" / "CMakeLists.txt").read_text()
    return sorted({name for name in re.findall(r"add_executable\(\s*([\w-]+)", text) if name != "hazardlab"})


def scripts(root: Path) -> list[str]:
    return sorted(path.relative_to(root).as_posix() for path in (root / "tools").rglob("*")
                  if path.is_file() and len(path.relative_to(root / "tools").parts) > 1
                  and path.suffix not in C_SOURCES and path.name not in NOT_SURFACES and "__pycache__" not in path.parts)


def drivers(root: Path) -> list[str]:
    """The Python files of checker/ outside its tests that a README names and that take a command line: a program
    (`__main__`) or the pytest plugin (pytest_addoption)."""
    readmes = "\n".join(p.read_text(errors="replace") for p in root.rglob("README.md")
                        if not {"build", ".deps", ".git"} & set(p.relative_to(root).parts))
    found = []
    for path in sorted((root / "checker").rglob("*.py")):
        relative = path.relative_to(root)
        if path.name.startswith("test_") or "tests" in relative.parts or "__pycache__" in relative.parts:
            continue
        text = path.read_text(errors="replace")
        if re.search(rf"\b{re.escape(path.name)}\b", readmes) and ("__main__" in text or "def pytest_addoption" in text):
            found.append(relative.as_posix())
    return found


def load_table(root: Path):
    spec = importlib.util.spec_from_file_location("surfaces_table", root / "cases" / "scenarios" / "surfaces.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def model_kinds_run(root: Path) -> set[str]:
    """The command kinds test_file_system_model.py draws (its COMMAND_KINDS and SCRIPT_KINDS)."""
    text = (root / "cases" / "scenarios" / "test_file_system_model.py").read_text()
    kinds = set()
    for listed in re.findall(r"^(?:COMMAND|SCRIPT)_KINDS = \(([^)]*)\)", text, re.M):
        kinds |= set(re.findall(r'"([a-z-]+)"', listed))
    return kinds


def check(root: Path) -> list[str]:
    table = load_table(root)
    rows = {s.name: s for s in table.SURFACES}
    present = commands(root) + programs(root) + scripts(root) + drivers(root)
    problems = [f"{name}: a surface with no row in cases/scenarios/surfaces.py: give it its refusals and its place in "
                "the file-system model (or say it writes nothing)" for name in present if name not in rows]
    problems += [f"{name}: a row of cases/scenarios/surfaces.py names no surface of the tree: take it out"
                 for name in rows if name not in present]
    run = model_kinds_run(root)
    for kind in table.MODEL_KINDS:
        if kind not in run:
            problems.append(f"MODEL_KINDS names '{kind}', which test_file_system_model.py does not run")
    for surface in table.SURFACES:
        if not surface.refusals:
            problems.append(f"{surface.name}: no refusal in cases/scenarios/surfaces.py")
        if surface.model is not None and surface.model not in table.MODEL_KINDS:
            problems.append(f"{surface.name}: model '{surface.model}' is not one of MODEL_KINDS")
        if surface.model is None and not re.match(r"(nothing|only the files|the reports a user names|"
                                                   r"builds and runs in --work)", surface.writes):
            problems.append(f"{surface.name}: writes {surface.writes!r} but has no place in the file-system model")
    return problems


# Each way a surface escapes the model, made on purpose in a copy of the tree: (what, change, what the lint must say).
def _new_command(root):
    path = root / "tools" / "hazardlab.cpp"
    path.write_text(path.read_text().replace("const Command kCommands[] = {",
                                             'const Command kCommands[] = {\n    {"prune", "x", nullptr, nullptr, nullptr},'))


def _new_script(root):
    (root / "tools" / "deps" / "fetch-more").write_text("#!/bin/sh\nrm -rf \"$1\"\n")


def _new_driver(root):
    (root / "checker" / "benchmarks" / "new_driver.py").write_text("if __name__ == '__main__':\n    pass\n")
    readme = root / "checker" / "README.md"
    readme.write_text(readme.read_text() + "\nRun `checker/benchmarks/new_driver.py`.\n")


def _new_program(root):
    path = root / "tools" / "CMakeLists.txt"
    path.write_text(path.read_text() + "\nadd_executable(hazardlab-sweeper sweeper.cpp)\n")


def _a_model_kind_not_run(root):
    path = root / "cases" / "scenarios" / "surfaces.py"
    path.write_text(path.read_text().replace('MODEL_KINDS = (', 'MODEL_KINDS = ("prune-everything", '))


def _a_row_without_refusals(root):
    path = root / "cases" / "scenarios" / "surfaces.py"
    text = path.read_text()
    path.write_text(text.replace('            Refusal((H, "explain", "no-such-hazard"), ("no-such-hazard",))),', "),"))


BREAKAGES = [
    ("a new command of the table", _new_command, "hazardlab prune: a surface with no row"),
    ("a new script under tools/", _new_script, "tools/deps/fetch-more: a surface with no row"),
    ("a new driver a README documents", _new_driver, "checker/benchmarks/new_driver.py: a surface with no row"),
    ("a new program of tools/", _new_program, "hazardlab-sweeper: a surface with no row"),
    ("a model kind the model does not run", _a_model_kind_not_run, "MODEL_KINDS names 'prune-everything'"),
    ("a row with no refusal", _a_row_without_refusals, "hazardlab explain: no refusal"),
]


def self_test(root: Path) -> int:
    failures = [] if not check(root) else [f"the tree itself does not pass: {check(root)}"]
    for what, change, expected in BREAKAGES:
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch)
            for folder in ("tools", "checker", "cases/scenarios"):
                shutil.copytree(root / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copy(root / "README.md", copy / "README.md")
            change(copy)
            problems = check(copy)
            if not any(expected in p for p in problems):
                failures.append(f"{what}: the lint did not say '{expected}' (it said {problems})")
    for f in failures:
        print(f)
    print(f"{len(BREAKAGES)} breakage(s); {len(failures)} not caught")
    return 1 if failures else 0


def main() -> int:
    if sys.argv[1] == "--self-test":
        return self_test(Path(sys.argv[2]))
    root = Path(sys.argv[1])
    problems = check(root)
    for p in problems:
        print(p)
    print(f"{len(commands(root))} commands, {len(programs(root))} programs, {len(scripts(root))} files under tools/, "
          f"{len(drivers(root))} documented drivers; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
