#!/usr/bin/env python3
"""The harness layout holds: every file sits in one of the folders harness/CMakeLists.txt
declares, no file passes 250 lines, and a folder includes only the folders declared before it
(the layers, from the bottom up). A hazard includes lesson/lesson.hpp and no other harness header.
The run is planned once (harness/plan/): ctest's registration script sets no property the plan owns,
and no source but record/'s results layout spells a measurement's test name.
Measurements cross from harness/perf to the reports as typed records only (measurement_seam).

Usage: test_layout.py SOURCE_DIR
       test_layout.py --self-test   (each rule, given a tree that breaks it, must fail)"""
import re
import sys
import tempfile
from pathlib import Path

MAX_LINES = 250
SOURCE_SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh"}


def declared_folders(harness: Path) -> list[str]:
    text = (harness / "CMakeLists.txt").read_text()
    start = text.find("set(HAZARDLAB_HARNESS_FOLDERS")
    if start < 0:
        raise SystemExit("harness/CMakeLists.txt: no set(HAZARDLAB_HARNESS_FOLDERS ...)")
    folders = []
    for line in text[start + len("set(HAZARDLAB_HARNESS_FOLDERS"):].splitlines():
        code = line.split("#")[0]  # comments may hold parentheses
        folders += code.replace(")", " ").split()
        if ")" in code:
            return folders
    raise SystemExit("harness/CMakeLists.txt: set(HAZARDLAB_HARNESS_FOLDERS ... is not closed")


def harness_includes(path: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m and "/" in m.group(1) and not m.group(1).startswith("hazardlab/"):
            found.append((number, m.group(1)))
    return found


# What the run plan (harness/plan/) decides for every test, which ctest's registration only passes on.
PLAN_PROPERTIES = ("RESOURCE_LOCK", "TIMEOUT", "DEPENDS", "FIXTURES_", "COST", "SKIP_RETURN_CODE", "ENVIRONMENT")
NAME_SOURCES = ("harness", "tools", "reports", "record", "cases/gpu", "conformance", "checker")


def planned_once(root: Path) -> list[str]:
    problems = []
    script = root / "cmake" / "RegisterGpuCases.cmake.in"
    code = "\n".join(line.split("#")[0] for line in script.read_text().splitlines()) if script.exists() else ""
    for block in re.findall(r"set_tests_properties\([^)]*\)", code):
        for word in PLAN_PROPERTIES:
            if word in block:
                problems.append(f"cmake/{script.name}: sets {word}, which the run plan decides (harness/plan/): "
                                "the registration only adds what the plan lists")
    if "/perf/" in code:
        problems.append(f"cmake/{script.name}: names a measurement's test; the run plan names every test")
    for folder in NAME_SOURCES:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and re.search(r'"/perf/|/perf/"', path.read_text()):
                problems.append(f"{path.relative_to(root)}: spells a measurement's test name; "
                                "measurement_name() (hazardlab/results_layout.hpp) is its one spelling")
    return problems


MEASUREMENT_KEYS = "record/src/measurements.cpp"  # where each measurement key is named, once
JSON_READ = r'(?:\[\s*"{key}"\s*\]|\.(?:value|contains|at|find|count)\(\s*"{key}"\s*[,)])'


def measurement_seam(root: Path) -> list[str]:
    """Measurements cross from harness/perf to the reports as the typed record
    (record/include/hazardlab/measurements.hpp): no harness/perf header exposes nlohmann::json, and
    nothing in reports/ reads a measurement's JSON by its key."""
    problems = []
    for path in sorted((root / "harness" / "perf").glob("*.hpp")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "nlohmann" in line.split("//")[0]:
                problems.append(f"{path.relative_to(root)}:{number}: a perf header exposes nlohmann::json; "
                                "hand the reports a typed record (hazardlab/measurements.hpp)")
    keys = re.findall(r'constexpr const char\* \w+ = "([^"]+)";', (root / MEASUREMENT_KEYS).read_text())
    if not keys:
        problems.append(f"{MEASUREMENT_KEYS}: names no measurement key")
    reads = re.compile("|".join(JSON_READ.format(key=re.escape(k)) for k in keys)) if keys else None
    for path in sorted((root / "reports").rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or not reads:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//")[0]
            if "measurements" in code and re.search(r"measurements\s*(\[|\.(value|contains|at|find|items)\b)", code):
                problems.append(f"{path.relative_to(root)}:{number}: reads the measurements as JSON; read the "
                                "typed record (hazardlab/measurements.hpp)")
            elif reads.search(code):
                problems.append(f"{path.relative_to(root)}:{number}: reads a measurement key as JSON; read the "
                                "typed record (hazardlab/measurements.hpp)")
    return problems


def self_test() -> int:
    """Each rule fails on a tree that breaks it and holds on one that does not."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "harness" / "perf").mkdir(parents=True)
        (root / "reports" / "src").mkdir(parents=True)
        (root / "record" / "src").mkdir(parents=True)
        (root / MEASUREMENT_KEYS).write_text('constexpr const char* median_gbps = "median_gbps";\n')
        header = root / "harness" / "perf" / "perf.hpp"
        writer = root / "reports" / "src" / "writer.cpp"
        header.write_text('#include "hazardlab/measurements.hpp"\n')
        writer.write_text("double g(const BandwidthPoint& b) { return b.median_gbps; }\n")
        if measurement_seam(root):
            failures.append(f"measurement_seam: a typed tree fails: {measurement_seam(root)}")
        for broken_header, broken_writer in (
                ("#include <nlohmann/json.hpp>\n", None),
                ("void to_json(nlohmann::json& j, const OverlapResult& o);\n", None),
                (None, 'double g(const PerfRecord& p) { return p.measurements["bandwidth"][0]["median_gbps"]; }\n'),
                (None, 'double g(const nlohmann::json& b) { return b.value("median_gbps", 0.0); }\n')):
            header.write_text(broken_header or '#include "hazardlab/measurements.hpp"\n')
            writer.write_text(broken_writer or "double g(const BandwidthPoint& b) { return b.median_gbps; }\n")
            if not measurement_seam(root):
                failures.append(f"measurement_seam holds on a broken tree: {broken_header or broken_writer!r}")
    for f in failures:
        print(f)
    print(f"self-test: {len(failures)} rule(s) that did not fail when broken")
    return 1 if failures else 0


def main() -> int:
    root = Path(sys.argv[1])
    harness = root / "harness"
    layers = declared_folders(harness)
    problems = []
    for path in sorted(harness.rglob("*")):
        if not path.is_file() or path.name == "CMakeLists.txt":
            continue
        relative = path.relative_to(harness)
        folder = relative.parts[0] if len(relative.parts) > 1 else ""
        if folder not in layers or len(relative.parts) != 2:
            problems.append(f"harness/{relative}: not directly in one of the declared folders {layers}")
            continue
        if path.suffix not in SOURCE_SUFFIXES:
            continue
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            problems.append(f"harness/{relative}: {lines} lines, more than {MAX_LINES}: split it by idea")
        allowed = set(layers[: layers.index(folder) + 1])
        for number, include in harness_includes(path):
            target = include.split("/")[0]
            if target not in layers:
                problems.append(f"harness/{relative}:{number}: includes \"{include}\" from no declared folder")
            elif target not in allowed:
                problems.append(
                    f"harness/{relative}:{number}: {folder}/ includes \"{include}\", but {target}/ is a layer above it")
    for path in sorted((root / "hazards").rglob("*.cpp")):
        for number, include in harness_includes(path):
            if include != "lesson/lesson.hpp":
                problems.append(f"{path.relative_to(root)}:{number}: includes \"{include}\"; a hazard includes "
                                "lesson/lesson.hpp and nothing else of the harness")
    problems += planned_once(root)
    problems += measurement_seam(root)
    for p in problems:
        print(p)
    print(f"{len(layers)} layers {layers}; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main())
