#!/usr/bin/env python3
"""The layout lint's run-plan rules fail when broken: a registration script that sets a property the
plan decides, or a source that spells a measurement's test name, each make test_layout.py exit 1
naming it, while the same small tree without them passes.

Usage: test_plan_rules.py SOURCE_DIR"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BROKEN = {
    "cmake/RegisterGpuCases.cmake.in": 'add_test(x y)\nset_tests_properties(x PROPERTIES LABELS gpu TIMEOUT 600)\n',
    "tools/names.cpp": 'std::string n = label + "/perf/" + part;\n',
}


def lint(root: Path) -> tuple[int, str]:
    p = subprocess.run([sys.executable, str(Path(__file__).with_name("test_layout.py")), str(root)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def main() -> int:
    source = Path(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="hazardlab-lint-") as scratch:
        root = Path(scratch)
        (root / "harness").mkdir()
        shutil.copy(source / "harness" / "CMakeLists.txt", root / "harness")
        (root / "record" / "src").mkdir(parents=True)  # where the measurement keys are named (measurement_seam)
        shutil.copy(source / "record" / "src" / "measurement_keys.hpp", root / "record" / "src")
        shutil.copy(source / "record" / "src" / "observations.cpp", root / "record" / "src")  # observation keys
        for name in BROKEN:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text("add_test(x y)\nset_tests_properties(x PROPERTIES LABELS gpu)\n"
                                     if name.endswith(".in") else "std::string n = measurement_name(0, part);\n")
        rc, out = lint(root)
        if rc != 0:
            print(f"the clean tree fails the lint:\n{out}")
            return 1
        for name, text in BROKEN.items():
            clean = (root / name).read_text()
            (root / name).write_text(text)
            rc, out = lint(root)
            (root / name).write_text(clean)
            if rc != 1 or name not in out:
                print(f"{name} broken, the lint exited {rc} without naming it:\n{out}")
                return 1
            print(f"{name} broken: caught: {out.splitlines()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
