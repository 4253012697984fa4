#!/usr/bin/env python3
"""The house holds: a top-level folder includes only folders on the floors below it (FLOORS), a measurement
group is compared as its enum, never as text, and the checker's process log is read by key in
checker/core/process_log_reader.cpp alone, a variant's observations in record/src/observations.cpp, FNV-1a
in hazardlab/fnv1a.hpp, a CUDA call is checked by HL_CUDA outside the standalone programs, and a command
line's errors become exit statuses in run_main alone. The
harness layout holds: every file sits in one of the folders harness/CMakeLists.txt declares, no file passes 250 lines, and a folder includes only the folders
declared before it (the layers, from the bottom up). No source anywhere outside the tests passes 250 lines either,
unless LONG_SOURCES (or, in checker/, CHECKER_LONG_SOURCES) names it with its reason. A hazard includes hazard/define.hpp and no other
harness header, and states its guard through the Guard handle without reading the sabotage switch
itself. Only the one environment reader (settings/src/environment.cpp) calls getenv, and no code outside
the settings table reads, sets or looks up a setting by spelling its name (setting_spelled_again). A
hazard's trial receives the trial's settings only (TrialSettings), never the whole run's. The run is
planned once (harness/plan/): ctest's registration script sets no property the plan owns, and no source
but record/'s results layout spells a measurement's test name. Measurements cross from harness/perf to
the reports as typed records only (measurement_seam). Tests stand beside what they test: a library's in its
tests/ (harness/tests/, which is no layer and may include every layer, reports/tests/), and cases/ holds only the
folders it names with their reasons (CASES_FOLDERS), its selftests/ only tests that need the registered hazards;
checker/programs/ holds the GPU programs and their driver, checker/benchmarks/ the benchmarks, and a test in
either tests the file beside it; a lesson includes nothing of the project but the lessons' own scaffold, which
holds their one CUDA check. A test that runs on a GPU gets it one way: the suite's cases from the run plan, every
other GPU test through hazardlab_add_gpu_test (ctest's resources), never add_test or a lock on a GPU by hand.

Usage: test_layout.py SOURCE_DIR
       test_layout.py --self-test [SOURCE_DIR]   (each rule, broken on purpose, must fail)"""
import re
import shutil
import sys
import tempfile
from pathlib import Path

MAX_LINES = 250
SOURCE_SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh"}
PYTHON_SUFFIX = ".py"  # capped in checker/ too (checker_layers)


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
            if in_test_folder(path.relative_to(root)):
                continue  # a test spells the names it checks
            if path.suffix in SOURCE_SUFFIXES and re.search(r'"/perf/|/perf/"', path.read_text()):
                problems.append(f"{path.relative_to(root)}: spells a measurement's test name; "
                                "measurement_name() (hazardlab/results_layout.hpp) is its one spelling")
    return problems


MEASUREMENT_KEYS = "record/src/measurement_keys.hpp"  # where each measurement key is named, once
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
        if path.suffix not in SOURCE_SUFFIXES or not reads or in_test_folder(path.relative_to(root)):
            continue  # the reports' tests read the JSON the reports wrote, to check it
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//")[0]
            if "measurements" in code and re.search(r"measurements\s*(\[|\.(value|contains|at|find|items)\b)", code):
                problems.append(f"{path.relative_to(root)}:{number}: reads the measurements as JSON; read the "
                                "typed record (hazardlab/measurements.hpp)")
            elif reads.search(code):
                problems.append(f"{path.relative_to(root)}:{number}: reads a measurement key as JSON; read the "
                                "typed record (hazardlab/measurements.hpp)")
    return problems


def measurement_seam_self_test() -> list[str]:
    """The seam rule fails on a tree that breaks it and holds on one that does not."""
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
    return failures


def sabotage_switch_in_hazards(root: Path) -> list[str]:
    """The harness switches a hazard's Guard off for the mutation check; a hazard that reads the
    switch itself has a guard the mutation check may not remove."""
    problems = []
    for path in sorted((root / "hazards").rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "sabotage_guards" in line:
                problems.append(f"{path.relative_to(root)}:{number}: reads sabotage_guards; state the guard through "
                                "s.guard() (harness/hold/guard.hpp), which the harness switches off")
    return problems


ENVIRONMENT_READER = Path("settings/src/environment.cpp")
SKIPPED_FOLDERS = {"build"}


def outside_the_project(relative: Path) -> bool:
    """Builds and hidden top-level folders (.git, .deps, checkouts of other people's programs kept beside the
    project) are not the project's code."""
    return relative.parts[0] in SKIPPED_FOLDERS or relative.parts[0].startswith(".")


def code_lines(root: Path, besides: Path | None = None, tests_too: bool = True, under: str = ""):
    """Each line of the project's code, without its // comment, with its file and number: every source file
    below `under` (the whole tree by default) outside builds and hidden folders, but `besides`, and the
    self-tests only when tests_too."""
    for path in sorted((root / under).rglob("*")):
        relative = path.relative_to(root)
        if (path.suffix not in SOURCE_SUFFIXES or outside_the_project(relative) or relative == besides
                or (not tests_too and in_test_folder(relative))):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            yield relative, number, line.split("//")[0]


def getenv_outside_the_reader(root: Path) -> list[str]:
    """Every setting is declared once and read through settings/ (hazardlab/environment.hpp), so that
    what a run was given is read, validated and recorded the same way everywhere."""
    return [f"{relative}:{number}: calls getenv; read the environment through hazardlab/environment.hpp "
            "(settings/), and declare a setting in settings_table.cpp"
            for relative, number, code in code_lines(root, besides=ENVIRONMENT_READER)
            if re.search(r"\bgetenv\s*\(", code)]


SETTINGS_TABLE = Path("settings/src/settings_table.cpp")
# Self-tests may spell names: they set the environment a person would.
TEST_FOLDERS = {Path("cases/selftests"), Path("cases/schema"), Path("checker/tests"), Path("harness/tests"),
                Path("reports/tests")}


def in_test_folder(relative: Path) -> bool:
    return any(folder in relative.parents for folder in TEST_FOLDERS)
# A setting's name used as a key: read, set or looked up by its spelling, or built into NAME=value.
NAME_AS_KEY = re.compile(r'(?:\b(?:setenv|unsetenv|environment_value\w*|setting|text|given|whole|flag|choice)\s*\(\s*'
                         r'"(?:HAZARDLAB|HL_CHECK)_[A-Z_]+"|"(?:HAZARDLAB|HL_CHECK)_[A-Z_]+=")')


def setting_spelled_again(root: Path) -> list[str]:
    """A setting's name, type and range are declared once (settings/src/settings_table.cpp, as
    hazardlab::setting::k...); code reads, sets and looks it up through that declaration, so that a
    renamed or retyped setting cannot leave a reader behind. Prose may name a setting."""
    return [f"{relative}:{number}: spells a setting's name to read, set or look it up; use its declaration, "
            "hazardlab::setting::k... (settings_table.hpp)"
            for relative, number, code in code_lines(root, besides=SETTINGS_TABLE, tests_too=False)
            if NAME_AS_KEY.search(code)]


CLI11_NUMBER_CHECK = re.compile(r"\bCLI::(?:Range|Bound|PositiveNumber|NonNegativeNumber|Number)\b"
                                r"|check\(\s*(?:hazardlab::)?cli::whole_number")


def cli11_reads_a_number(root: Path) -> list[str]:
    """A command-line number is read by ->transform(hazardlab::cli::whole_number(...)) or
    ->check(hazardlab::cli::decimal_number(...)) (hazardlab/number_option.hpp), which read it in decimal and hand
    CLI11 the decimal: CLI11's own checks, and ->check(cli::whole_number) which hands CLI11 the text as typed, let
    its conversion read "077" as octal 63."""
    return [f"{relative}:{number}: checks a number with CLI11's own check or ->check(cli::whole_number); use "
            "->transform(hazardlab::cli::whole_number(...)) (hazardlab/number_option.hpp)"
            for relative, number, code in code_lines(root) if CLI11_NUMBER_CHECK.search(code)]


def trials_receive_trial_settings(root: Path) -> list[str]:
    """A trial receives TrialSettings, what it may use (its gate and call limits, its guard); the
    judges and the run plan own the rest. Only a hazard's Measurement, which runs outside the trial
    loop, receives the whole Settings."""
    problems = []
    for folder in ("hazards", "harness/scenario"):
        for path in sorted((root / folder).rglob("*.cpp")) + sorted((root / folder).rglob("*.hpp")):
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                code = line.split("//")[0]
                if re.search(r"(?<!\w)Settings\s*&", code) and "DeviceFingerprint" not in code:
                    problems.append(f"{path.relative_to(root)}:{number}: a trial receives the whole Settings; "
                                    "give it const TrialSettings&")
    return problems


# The house, from the ground up (docs/architecture.md, "The house"): a top-level folder includes its own files
# and those of the floors below it, never one beside it or above it. The suite (harness, reports, hazards,
# cases, conformance_gpu) and the checker stand on one ground; tools/ is the door of both.
FLOORS = (("settings", "conformance", "document"), ("record", "command_line"), ("harness", "reports", "checker"),
          ("hazards", "cases", "conformance_gpu", "tools"))
STANDALONE = ("lessons",)  # plain CUDA programs a student compiles alone: they include nothing of the project


def floor_of(folder: str) -> int | None:
    return next((i for i, floor in enumerate(FLOORS) if folder in floor), None)


def included_folder(root: Path, path: Path, include: str) -> str | None:
    """The top-level folder a quoted include names: a harness folder's header, a folder's own path
    ("checker/core/..."), a public header ("hazardlab/..." under some folder's include/), or a file
    beside the includer."""
    if (root / "harness" / include).is_file():
        return "harness"
    first = include.split("/")[0]
    if floor_of(first) is not None and (root / include).is_file():
        return first
    if first == "hazardlab":
        for public in sorted(root.glob("*/include/" + include)):
            return public.relative_to(root).parts[0]
    if (path.parent / include).is_file():
        return path.relative_to(root).parts[0]
    return None


def house_floors(root: Path) -> list[str]:
    problems = []
    for top in sorted(p for p in root.iterdir() if p.is_dir() and not outside_the_project(p.relative_to(root))):
        sources = [p for p in sorted(top.rglob("*")) if p.suffix in SOURCE_SUFFIXES]
        if not sources or top.name in STANDALONE:
            continue
        here = floor_of(top.name)
        if here is None:
            problems.append(f"{top.name}/: holds code but stands on no floor of the house; "
                            "add it to FLOORS (cases/lint/test_layout.py) and to docs/architecture.md")
            continue
        for path in sources:
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                target = included_folder(root, path, m.group(1)) if m else None
                if target is None or target == top.name:
                    continue
                there = floor_of(target)
                if there is not None and there >= here:
                    where = "beside it" if there == here else "above it"
                    problems.append(f"{path.relative_to(root)}:{number}: {top.name}/ includes \"{m.group(1)}\" of "
                                    f"{target}/, which stands {where} (floor {there + 1}; {top.name}/ is on "
                                    f"floor {here + 1})")
    return problems


PROCESS_LOG = Path("checker/core/process_log_keys.hpp")  # namespace key: each key of the process log, named once
PROCESS_LOG_READER = Path("checker/core/process_log_reader.cpp")  # the one reader of the log, by those keys


def process_log_keys(root: Path) -> list[str]:
    text = (root / PROCESS_LOG).read_text() if (root / PROCESS_LOG).is_file() else ""
    block = re.search(r"namespace key \{(.*?)\}\s*// namespace key", text, re.S)
    return re.findall(r'\*?\w+\s*=\s*"(\w+)"', block.group(1)) if block else []


def process_log_read_by_key(root: Path) -> list[str]:
    """The process log that the injected library writes is read and written through
    checker/core/process_log.hpp alone, whose keys are named once: no other source of the checker (its
    tests aside) reads a log line by its key."""
    if not (root / "checker").is_dir():
        return []
    keys = process_log_keys(root)
    if not keys:
        return [f"{PROCESS_LOG}: names no process-log key (namespace key)"]
    # Reads only: other documents of the checker (its report, SARIF) write keys of the same names.
    reads = re.compile("|".join(r'\.(?:value|contains|at|find|count)\(\s*"{key}"\s*[,)]'.format(key=re.escape(k))
                                for k in keys))
    return [f"{relative}:{number}: reads a process-log key as JSON; read the log through "
            "checker/core/process_log.hpp, which names each key once"
            for relative, number, code in code_lines(root, besides=PROCESS_LOG, tests_too=False, under="checker")
            if reads.search(code) and Path(relative) != PROCESS_LOG_READER]


OBSERVATIONS = Path("record/src/observations.cpp")  # namespace key: a result's observations, each key once
OBSERVATION_KEYS = ("blocking", "property_runs", "per_size", "by_gate", "race_window", "self_check", "host_read",
                    "conformance")  # the names, in that file, of the observations' own keys


def observation_read_by_key(root: Path) -> list[str]:
    """A variant's observations are typed (hazardlab/observations.hpp) and their JSON keys named once in
    record/src/observations.cpp: no other source (the self-tests aside) reads or writes them by key."""
    text = (root / OBSERVATIONS).read_text() if (root / OBSERVATIONS).is_file() else ""
    spelled = dict(re.findall(r'\*?(\w+)\s*=\s*"(\w+)"', text))
    missing = [name for name in OBSERVATION_KEYS if name not in spelled]
    if missing:
        return [f"{OBSERVATIONS}: does not name the observation key(s) {missing}"]
    access = re.compile("|".join(JSON_READ.format(key=re.escape(spelled[n])) for n in OBSERVATION_KEYS))
    return [f"{relative}:{number}: handles a variant's observation by its JSON key; use the typed Observations "
            "(hazardlab/observations.hpp)"
            for relative, number, code in code_lines(root, besides=OBSERVATIONS, tests_too=False)
            if access.search(code)]


HASH = Path("settings/include/hazardlab/fnv1a.hpp")  # the one hash


def hash_written_again(root: Path) -> list[str]:
    """FNV-1a is written once (hazardlab/fnv1a.hpp): no other source multiplies by its prime."""
    return [f"{relative}:{number}: writes FNV-1a again; use hazardlab/fnv1a.hpp"
            for relative, number, code in code_lines(root, besides=HASH)
            if re.search(r"\b1099511628211|0x100000001b3", code, re.I)]


CUDA_CHECK = Path("harness/cuda/check.hpp")  # HL_CUDA: the one CUDA check of hazardlab's own code
# Programs that stand alone, each with its own few lines of check: a lesson a student compiles with nvcc alone; a
# probe that confirms a driver deviation without the suite's code, so that its evidence is independent; the
# checker's programs, which stand for anyone's program and link nothing of hazardlab; the programs the
# conformance printer writes out for nvcc.
STANDALONE_CUDA_CHECKS = (Path("lessons/lesson_scaffold.hpp"), Path("conformance_gpu/probes"),
                          Path("checker/programs/cuda_check.hpp"),
                          Path("conformance/print/print_program.cpp"))
CUDA_CHECK_MACRO = re.compile(r"#\s*define\s+\w*(?:CHECK|CUDA)\w*\s*\(")


def cuda_check_written_again(root: Path) -> list[str]:
    """A CUDA call is checked by HL_CUDA (harness/cuda/check.hpp); only the standalone programs define their own."""
    return [f"{relative}:{number}: defines a CUDA check again; use HL_CUDA (harness/cuda/check.hpp), or in a "
            "lesson CHECK (lessons/lesson_scaffold.hpp)"
            for relative, number, code in code_lines(root, besides=CUDA_CHECK)
            if CUDA_CHECK_MACRO.search(code)
            and not any(relative == s or s in relative.parents for s in STANDALONE_CUDA_CHECKS)]


RUN_MAIN = Path("command_line/src/run_main.cpp")  # how every program ends (hazardlab/run_main.hpp)


def exit_mapped_again(root: Path) -> list[str]:
    """A program's command line is parsed, and its errors mapped to exit statuses, by run_main alone."""
    return [f"{relative}:{number}: maps a command-line error to an exit status itself; use run_main "
            "(hazardlab/run_main.hpp)"
            for relative, number, code in code_lines(root, besides=RUN_MAIN)
            if re.search(r"catch\s*\(\s*const\s+CLI::\w*Error|\.exit\(\s*e\s*\)", code)]


GROUP_SPELLING = Path("record/src/perf_store.cpp")  # to_string(MeasurementGroup): a group's one spelling
GROUP_AS_TEXT = re.compile(r'\b\w*(?:part|group)\w*\s*[!=]=\s*"(?:bandwidth|overlap|findings|integrity|soak)"')


def measurement_group_as_text(root: Path) -> list[str]:
    """A measurement group is a MeasurementGroup (hazardlab/perf_store.hpp), spelled once; code compares the
    enum, never a group's name."""
    return [f"{relative}:{number}: compares a measurement group as text; compare the MeasurementGroup "
            "(hazardlab/perf_store.hpp)"
            for relative, number, code in code_lines(root, besides=GROUP_SPELLING)
            if GROUP_AS_TEXT.search(code)]


# The checker's rooms, declared bottom-up in checker/CMakeLists.txt, with harness/'s 250-line cap on sources
# outside its tests. At most CHECKER_EXCEPTIONS_ALLOWED sources past it, each named here with its reason (the lint
# prints them); the GPU test programs, read top to bottom as a user's program is, are named apart.
CHECKER_EXCEPTIONS_ALLOWED = 2
CHECKER_LONG_SOURCES = {
    "checker/core/checker.cpp": "the Checker's bookkeeping of copies, holds and findings under one lock: one class's "
                                "invariants, which hold only together",
    "checker/core/key_plan.cpp": "the key plan's rules, which hold only together (every thread faults on owned bytes)",
}
CHECKER_TEST_PROGRAMS = "checker/programs/"
CHECKER_LONG_TEST_PROGRAMS = {
    "checker/programs/check_patterns.cu": "a standalone test program, read top to bottom as a user's program is",
    "checker/programs/check_host_threads.cu": "a standalone test program, read top to bottom as a user's program is",
    "checker/programs/check_agreement.cpp": "a standalone test program, read top to bottom as a user's program is",
}
# Rooms whose includes go one way: the first below the second, never the other way round, whatever else moves in
# the declared order (the injected library decodes the driver's calls into the core's types).
CHECKER_ONE_WAY = [("core", "inject"), ("core", "fault"), ("fault", "inject")]


def declared_checker_layers(root: Path) -> list[str]:
    text = (root / "checker" / "CMakeLists.txt").read_text()
    start = text.find("set(HAZARDLAB_CHECKER_LAYERS")
    if start < 0:
        raise SystemExit("checker/CMakeLists.txt: no set(HAZARDLAB_CHECKER_LAYERS ...)")
    layers = []
    for line in text[start + len("set(HAZARDLAB_CHECKER_LAYERS"):].splitlines():
        code = line.split("#")[0]
        layers += code.replace(")", " ").split()
        if ")" in code:
            return layers
    raise SystemExit("checker/CMakeLists.txt: set(HAZARDLAB_CHECKER_LAYERS ... is not closed")


def checker_exceptions(long_sources: dict[str, str], test_programs: dict[str, str]) -> list[str]:
    """At most CHECKER_EXCEPTIONS_ALLOWED long sources named outside the test programs, each with its reason; a test
    program named apart stands in checker/programs/."""
    problems = []
    if len(long_sources) > CHECKER_EXCEPTIONS_ALLOWED:
        problems.append(f"CHECKER_LONG_SOURCES names {len(long_sources)} sources past the cap, more than "
                        f"{CHECKER_EXCEPTIONS_ALLOWED}: split them by idea ({', '.join(sorted(long_sources))})")
    for name, reason in {**long_sources, **test_programs}.items():
        if not reason.strip():
            problems.append(f"{name}: named past the cap without a reason")
    for name in long_sources:
        if name.startswith(CHECKER_TEST_PROGRAMS):
            problems.append(f"{name}: a test program, named among CHECKER_LONG_SOURCES: name it in "
                            "CHECKER_LONG_TEST_PROGRAMS")
    for name in test_programs:
        if not name.startswith(CHECKER_TEST_PROGRAMS):
            problems.append(f"{name}: named as a test program but outside {CHECKER_TEST_PROGRAMS}")
    return problems


def checker_layers(root: Path, long_sources: dict[str, str] | None = None,
                   test_programs: dict[str, str] | None = None) -> list[str]:
    """Every file of checker/ sits in a declared room (or is the room's CMakeLists or README), a room includes only
    rooms declared before it, the one-way pairs (CHECKER_ONE_WAY) are declared in their order, and no source outside
    tests/ (C++, CUDA or Python; a test_*.py beside its file is a test)
    passes MAX_LINES unless CHECKER_LONG_SOURCES (at most two) or CHECKER_LONG_TEST_PROGRAMS names it."""
    long_sources = CHECKER_LONG_SOURCES if long_sources is None else long_sources
    test_programs = CHECKER_LONG_TEST_PROGRAMS if test_programs is None else test_programs
    named = {**long_sources, **test_programs}
    checker = root / "checker"
    if not (checker / "CMakeLists.txt").exists():
        return []
    layers = declared_checker_layers(root)
    problems = checker_exceptions(long_sources, test_programs)
    for lower, upper in CHECKER_ONE_WAY:
        if lower in layers and upper in layers and layers.index(lower) > layers.index(upper):
            problems.append(f"checker/CMakeLists.txt: {upper}/ is declared below {lower}/; {upper}/ includes "
                            f"{lower}/, never the other way round")
    for path in sorted(checker.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        relative = path.relative_to(checker)
        if len(relative.parts) == 1:
            if relative.name not in ("CMakeLists.txt", "README.md"):
                problems.append(f"checker/{relative}: not in one of the declared rooms {layers}")
            continue
        room = relative.parts[0]
        if room not in layers:
            problems.append(f"checker/{relative}: not in one of the declared rooms {layers}")
            continue
        name = f"checker/{relative}"
        if path.suffix == PYTHON_SUFFIX:
            # Python sources hold the same cap (the drivers, the pytest plugin); a test beside its file (test_*.py)
            # and the tests/ room are tests, which have none.
            lines = len(path.read_text(errors="replace").splitlines())
            if (room != "tests" and not path.name.startswith("test_") and lines > MAX_LINES
                    and name not in named):
                problems.append(f"{name}: {lines} lines, more than {MAX_LINES}: split it into modules of one idea "
                                "each, or name it in CHECKER_LONG_SOURCES with its reason")
            continue
        if path.suffix not in SOURCE_SUFFIXES:
            continue
        lines = len(path.read_text().splitlines())
        if room != "tests" and lines > MAX_LINES and name not in named:
            problems.append(f"{name}: {lines} lines, more than {MAX_LINES}: split it by idea (at most "
                            f"{CHECKER_EXCEPTIONS_ALLOWED} sources may be named in CHECKER_LONG_SOURCES)")
        allowed = set(layers[: layers.index(room) + 1])
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = re.match(r'\s*#\s*include\s+"checker/([^/"]+)/', line)
            if m and m.group(1) not in allowed:
                problems.append(f"{name}:{number}: {room}/ includes checker/{m.group(1)}/, a room above it")
    for name in named:
        if (root / name).exists() and len((root / name).read_text().splitlines()) <= MAX_LINES:
            problems.append(f"{name}: named past the cap but within {MAX_LINES} lines: take it out")
    return problems


def checker_exceptions_self_test() -> list[str]:
    """The checker's cap fails on a third named exception, a test program named among them, and an exception
    without a reason; it holds on the two named today."""
    failures = []
    if checker_exceptions(CHECKER_LONG_SOURCES, CHECKER_LONG_TEST_PROGRAMS):
        failures.append("checker_exceptions: today's exceptions fail")
    third = {**CHECKER_LONG_SOURCES, "checker/inject/driver_calls.cpp": "one switch"}
    if not any("more than 2" in p for p in checker_exceptions(third, {})):
        failures.append("checker_exceptions holds on a third named exception")
    if not any("a test program, named among" in p
               for p in checker_exceptions({"checker/programs/x.cu": "why"}, {})):
        failures.append("checker_exceptions holds on a test program named among the exceptions")
    if not any("without a reason" in p for p in checker_exceptions({"checker/core/x.cpp": " "}, {})):
        failures.append("checker_exceptions holds on an exception without a reason")
    return failures


# harness/'s 250-line cap holds for every source of the tree outside the tests: a file past it is split by concern,
# one concern per file, or named here with the reason it is one whole. harness/ (no exceptions) and checker/
# (CHECKER_LONG_SOURCES) keep their own rules; a folder named tests or selftests, and cases/schema's examples, hold
# tests, which have no cap.
LONG_SOURCES: dict[str, str] = {
    "tools/host_interference.cpp": "a standalone measurement program (its rounds, its figures and its decision), "
                                   "read top to bottom as the checker's test programs are",
}
CAPPED_ELSEWHERE = ("harness", "checker")


def tests_only(relative: Path) -> bool:
    return in_test_folder(relative) or any(part in ("tests", "selftests") for part in relative.parts[:-1])


def sources_within_the_cap(root: Path, long_sources: dict[str, str] | None = None) -> list[str]:
    """No source outside the tests passes MAX_LINES unless `long_sources` (LONG_SOURCES) names it with its reason,
    and each source it names is past the cap."""
    long_sources = LONG_SOURCES if long_sources is None else long_sources
    problems = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if (path.suffix not in SOURCE_SUFFIXES or not path.is_file() or outside_the_project(relative)
                or relative.parts[0] in CAPPED_ELSEWHERE or tests_only(relative)):
            continue
        lines = len(path.read_text(errors="replace").splitlines())
        if lines > MAX_LINES and relative.as_posix() not in long_sources:
            problems.append(f"{relative.as_posix()}: {lines} lines, more than {MAX_LINES}: split it by concern (one "
                            "concern per file), or name it in LONG_SOURCES (cases/lint/test_layout.py) with its reason")
    for name in long_sources:
        if (root / name).is_file() and len((root / name).read_text(errors="replace").splitlines()) <= MAX_LINES:
            problems.append(f"{name}: named in LONG_SOURCES but within {MAX_LINES} lines: take it out")
    return problems


def source_cap_self_test() -> list[str]:
    """The cap fails on a long source outside the tests and on a named exception that is short, and holds on a long
    test, a named long source, and the folders that keep their own cap."""
    failures = []
    long_text, short_text = "int x();\n" * (MAX_LINES + 10), "int x();\n"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for relative, text in (("reports/tests/test_long.cpp", long_text), ("conformance/tests/test_long.cpp", long_text),
                               ("cases/selftests/test_long.cpp", long_text), ("tools/short.cpp", short_text),
                               ("checker/core/named_there.cpp", long_text), ("build/dev/generated.cpp", long_text)):
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(text)
        if sources_within_the_cap(root, {}):
            failures.append(f"sources_within_the_cap: a tree within the cap fails: {sources_within_the_cap(root, {})}")
        (root / "tools" / "long.cpp").write_text(long_text)
        if sources_within_the_cap(root, {"tools/long.cpp": "why"}):
            failures.append("sources_within_the_cap: a long source named with its reason fails")
        if not any("tools/long.cpp: 260 lines" in p for p in sources_within_the_cap(root, {})):
            failures.append("sources_within_the_cap holds on a long source that nothing names")
        if not any("tools/short.cpp: named in LONG_SOURCES" in p
                   for p in sources_within_the_cap(root, {"tools/long.cpp": "why", "tools/short.cpp": "why"})):
            failures.append("sources_within_the_cap holds on a short source named as too long")
    return failures


def checker_python_cap_self_test() -> list[str]:
    """The cap on checker/'s Python holds on a long test (test_*.py beside its file, or in tests/) and fails on a long
    driver."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "checker").mkdir()
        (root / "checker" / "CMakeLists.txt").write_text("set(HAZARDLAB_CHECKER_LAYERS\n  corpus\n  tests)\n")
        for relative in ("checker/corpus/test_long.py", "checker/tests/long.py", "checker/corpus/short.py"):
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text("x = 1\n" * (MAX_LINES + 1 if "long" in relative else 3))
        if checker_layers(root):
            return [f"checker_layers: long Python tests are capped: {checker_layers(root)}"]
        (root / "checker" / "corpus" / "long_driver.py").write_text("x = 1\n" * (MAX_LINES + 1))
        if not any("checker/corpus/long_driver.py: 251 lines" in p for p in checker_layers(root)):
            return ["checker_layers holds on a long Python driver that nothing names"]
    return []


# The rooms that run inside the checked program, each with the one home of its process state: a mutable object at
# namespace scope, a function's static one or a thread-local one anywhere else in the room is state outside it.
STATE_HOMES = {
    "checker/fault": ("checker/fault/fault_state.cpp", "the fault path's state lives in FaultState "
                                                        "(checker/fault/fault_state.hpp)"),
    "checker/inject": ("checker/inject/session.cpp", "the injected library's state lives in its Session or a "
                                                      "thread's ThreadState (checker/inject/session.hpp)"),
}
TYPE_DEFINITION = re.compile(r"^(?:template\s*<.*>\s*)?(?:struct|class|union|enum(?:\s+class|\s+struct)?)\s+\w+"
                             r"(?:\s+final)?(?:\s*:\s*[^=]*)?$", re.S)


def namespace_scope_statements(text: str):
    """(line, statement) for each statement at namespace scope (outside any function or class body), comments and
    literals blanked; a braced group of a statement stays in it as `{}` (an initializer, or a type's body)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', '""', text)
    text = "\n".join("" if line.lstrip().startswith("#") else line for line in text.splitlines())
    statement, start_line, line, i = "", 1, 1, 0
    while i < len(text):
        c = text[i]
        if c == "\n":
            line += 1
        if c == "{":
            head = statement.strip()
            if re.match(r'^(?:inline\s+)?namespace\b[\w:\s]*$|^extern\s+""$', head):
                statement = ""  # a namespace's or extern "C"'s body: still namespace scope
                i += 1
                continue
            depth, j = 1, i + 1
            while j < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                line += text[j] == "\n"
                j += 1
            rest = text[j:].lstrip()
            if rest.startswith(";") or rest.startswith(","):
                statement += "{}"  # an initializer, or a type's body: the statement goes on to its ';'
            else:
                statement = ""     # a function's body
            i = j
            continue
        if c == "}":
            statement = ""  # the end of a namespace
        elif c == ";":
            if statement.strip():
                yield start_line, " ".join(statement.split())
            statement = ""
        else:
            if not statement.strip() and not c.isspace():
                start_line = line
            statement += c
        i += 1


def is_state(statement: str) -> bool:
    """A variable that can change: not a type, a function, an alias, a constant or a declaration of another's."""
    if re.match(r"^(?:using|typedef|template|static_assert|friend|extern)\b", statement):
        return False
    if re.search(r"\bthread_local\b", statement):
        return True
    statement = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", statement)
    if re.search(r"\bconstexpr\b|^(?:static\s+)?const\b", statement):
        return False
    if TYPE_DEFINITION.match(statement.replace("{}", "").strip()):
        return False
    if "=" not in statement and "{}" not in statement and re.search(r"\)\s*(?:const|noexcept|override|final|\s)*$",
                                                                      statement):
        return False  # a function's declaration
    return bool(re.search(r"\w", statement))


FUNCTION_STATIC = re.compile(r"^\s+(?:static\s+thread_local|thread_local\s+static|static|thread_local)\s+"
                             r"(?!const\b|constexpr\b|constinit\s+const\b)([^=;{(]*?)\s*(?:[={;]|$)")


def function_statics(text: str):
    """(line, statement) for each static or thread-local object declared inside a body (an indented line), comments
    and literals blanked; a static member function (a parenthesis before its body) is no object."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    for number, line in enumerate(text.splitlines(), 1):
        m = FUNCTION_STATIC.match(line)
        if m and m.group(1).strip() and "(" not in line.split("=")[0].split("{")[0]:
            yield number, line.strip()


def state_outside_its_home(root: Path) -> list[str]:
    """The rooms that run inside the checked program (STATE_HOMES) keep their process state in one declared object:
    a mutable object at namespace scope, or a function's static or thread-local one, anywhere else in the room is
    state outside it."""
    problems = []
    for room, (home, where) in STATE_HOMES.items():
        for path in sorted((root / room).glob("*")):
            name = f"{room}/{path.name}"
            if path.suffix not in SOURCE_SUFFIXES or name == home:
                continue
            text = path.read_text()
            found = [(n, st) for n, st in namespace_scope_statements(text) if is_state(st)]
            found += [(n, st) for n, st in function_statics(text) if not any(n == m for m, _ in found)]
            for number, statement in sorted(found):
                problems.append(f"{name}:{number}: keeps state at file scope ({statement[:60]}); {where}")
    return problems


# What stands in cases/, each with why it is no one library's: a library's self-tests stand beside it, in its tests/
# (harness/tests/, reports/tests/, conformance/tests/, checker/tests/), registered from its own CMakeLists.
CASES_FOLDERS = {
    "gpu": "the GPU runners, which run every hazard's variants and the measurements on every GPU",
    "selftests": "the harness's self-tests that need the registered hazards (hazards/ stands above the harness)",
    "scenarios": "the real tools, ctest, the install and Slurm, driven from outside as a user runs them",
    "lint": "the lints of the whole tree",
    "schema": "the documents the tools write, against the schemas the project ships",
    "browser": "every page the tools make, in a real browser",
}
NEEDS_THE_HAZARDS = re.compile(r'^\s*#\s*include\s+"hazard/registry\.hpp"', re.M)


def tests_beside_their_library(root: Path) -> list[str]:
    """A library's tests stand beside it; cases/ holds only the folders CASES_FOLDERS names, and its selftests/
    only the tests that need the registered hazards (they include hazard/registry.hpp)."""
    cases = root / "cases"
    problems = []
    for path in sorted(cases.rglob("*")) if cases.is_dir() else []:
        parts = path.relative_to(cases).parts
        if not path.is_file() or len(parts) == 1:
            continue
        relative = path.relative_to(root)
        if parts[0] not in CASES_FOLDERS:
            problems.append(f"{relative}: cases/{parts[0]}/ is not a folder of cases/ that the layout names "
                            "(CASES_FOLDERS, cases/lint/test_layout.py, with why it is no one library's); a "
                            "library's tests stand beside it, in its tests/")
        elif parts[0] == "selftests" and not NEEDS_THE_HAZARDS.search(path.read_text(errors="replace")):
            problems.append(f"{relative}: a test of one library, standing in cases/; it stands beside its library "
                            "(<library>/tests/), unless it needs the registered hazards (hazard/registry.hpp)")
    return problems


CHECKER_PROGRAMS = Path("checker/programs")  # the GPU programs run under the checker, and their driver
CHECKER_BENCHMARKS = Path("checker/benchmarks")  # what checking costs, printed, never asserted
CALLED_A_BENCHMARK = re.compile(r"\bA benchmark\b")


def checker_programs_apart(root: Path) -> list[str]:
    """checker/programs/ holds the programs that run under the checker, never a benchmark; a test in it or in
    checker/benchmarks/ tests the file beside it (test_NAME beside NAME), the checker's other tests stand in
    checker/tests/."""
    problems = []
    for folder in (CHECKER_PROGRAMS, CHECKER_BENCHMARKS):
        for path in sorted((root / folder).glob("test_*")):
            tested = path.name[len("test_"):].rsplit(".", 1)[0]
            if not any(p.stem == tested for p in path.parent.iterdir() if p != path):
                problems.append(f"{path.relative_to(root)}: a test in {folder}/ tests the file beside it "
                                f"(test_NAME beside NAME), and {tested} is not there; the checker's other tests "
                                "stand in checker/tests/")
    for path in sorted((root / CHECKER_PROGRAMS).glob("*")):
        if path.suffix not in SOURCE_SUFFIXES | {".py"}:
            continue
        opening = "\n".join(path.read_text(errors="replace").splitlines()[:15])
        if "benchmark" in path.name or CALLED_A_BENCHMARK.search(opening):
            problems.append(f"{path.relative_to(root)}: a benchmark among the checker's GPU programs; benchmarks "
                            f"stand in {CHECKER_BENCHMARKS}/")
    return problems


LESSONS = Path("lessons")


def lessons_stand_alone(root: Path) -> list[str]:
    """A lesson is compiled by a student with nvcc alone: it includes nothing of the project, only the files of
    lessons/ (their scaffold)."""
    problems = []
    lessons = (root / LESSONS).resolve()
    for path in sorted((root / LESSONS).rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            target = (path.parent / m.group(1)).resolve()
            if not target.is_file() or lessons not in target.parents:
                problems.append(f"{path.relative_to(root)}:{number}: a lesson includes \"{m.group(1)}\", which is "
                                "not in lessons/; a lesson includes nothing of the project but lesson_scaffold.hpp")
    return problems


# How a test gets its GPU, one way (cmake/HazardlabTesting.cmake): the suite's cases from the run plan
# (hazardlab_add_gpu_cases), every other GPU test through hazardlab_add_gpu_test, which declares ctest's resources.
GPU_TEST_FUNCTION = "hazardlab_add_gpu_test"
# The scripts that run GPU programs themselves (a test of them is a GPU test, whatever it is given).
GPU_DRIVERS = ("expect_check.py", "check_plugin_on_gpu.py", "check_corpus.py")
CMAKE_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
HELD_BY_HAND = re.compile(r'\bRESOURCE_LOCK\s+"?(?:\$\{\w+\})?gpu[\w${}]*|\bRESOURCE_GROUPS\b|\bCUDA_VISIBLE_DEVICES\b')


def cmake_files(root: Path) -> list[Path]:
    return [p for p in sorted(root.rglob("*"))
            if p.is_file() and not outside_the_project(p.relative_to(root))
            and (p.name == "CMakeLists.txt" or p.name.endswith((".cmake", ".cmake.in")))]


def cmake_calls(text: str):
    """(line, command, arguments) of every command call of a CMake file, its # comments left out."""
    code = "\n".join(line.split("#")[0] for line in text.splitlines())
    i = 0
    while (m := CMAKE_CALL.search(code, i)) is not None:
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[j], 0)
            j += 1
        yield code.count("\n", 0, m.start()) + 1, m.group(1).lower(), code[m.end():j - 1]
        i = j


def expanded(arguments: str, variables: dict[str, str]) -> str:
    """The arguments with the file's own set() variables put in, twice over (a variable made of variables)."""
    for _ in range(2):
        arguments = re.sub(r"\$\{(\w+)\}", lambda m: variables.get(m.group(1), m.group(0)), arguments)
    return arguments


def gpu_programs(files: dict[Path, list]) -> list[re.Pattern]:
    """The executables that run on a GPU: built from CUDA sources, or linking a CUDA library themselves; a name
    made with a variable (lesson-${hazard}) matches any word in its place."""
    sources, cuda_linked = {}, set()
    for calls in files.values():
        for _, command, arguments in calls:
            words = arguments.split()
            if command == "add_executable" and words and not words[0].startswith("${"):
                sources[words[0]] = words[1:]
            elif command == "target_link_libraries" and words and "CUDA::" in arguments:
                cuda_linked.add(words[0])
    names = [n for n, srcs in sources.items() if n in cuda_linked or any(s.endswith(".cu") for s in srcs)]
    return [re.compile("(?<![\\w./-])" + re.sub(r"\\\$\\\{\w+\\\}", r"(?:\\$\\{\\w+\\}|[\\w.+-]+)", re.escape(n))
                       + "(?![\\w./-])") for n in names]


def gpu_tests_registered_once(root: Path) -> list[str]:
    """A test that runs on a GPU gets it one way: a test of a GPU program (built from CUDA sources or linking a CUDA
    library) or of a GPU driver script (GPU_DRIVERS) is registered with hazardlab_add_gpu_test, never add_test or a
    function of one's own around add_test; and no CMake code but that function takes a GPU by hand (a RESOURCE_LOCK on
    a GPU, RESOURCE_GROUPS, CUDA_VISIBLE_DEVICES)."""
    files = {path: list(cmake_calls(path.read_text(errors="replace"))) for path in cmake_files(root)}
    programs = gpu_programs(files)
    # Functions and macros of the project's own that register tests with add_test: their calls register too.
    registering = set()
    for calls in files.values():
        inside = None
        for _, command, arguments in calls:
            if command in ("function", "macro") and arguments.split():
                inside = arguments.split()[0].lower()
            elif command in ("endfunction", "endmacro"):
                inside = None
            elif command == "add_test" and inside and inside != GPU_TEST_FUNCTION:
                registering.add(inside)
    problems = []
    for path, calls in files.items():
        relative = path.relative_to(root)
        variables = {}
        inside = None
        for number, command, arguments in calls:
            if command in ("function", "macro") and arguments.split():
                inside = arguments.split()[0].lower()
                continue
            if command in ("endfunction", "endmacro"):
                inside = None
                continue
            if command == "set" and arguments.split():
                variables[arguments.split()[0]] = " ".join(arguments.split()[1:])
            if inside == GPU_TEST_FUNCTION:
                continue  # the one place that hands a test its GPU
            text = expanded(arguments, variables)
            if command == "add_test" or command in registering:
                named = [d for d in GPU_DRIVERS if re.search(r"(?<![\w.-])" + re.escape(d), text)]
                named += [p.pattern for p in programs if p.search(text)]
                if named:
                    problems.append(f"{relative}:{number}: registers a GPU test with {command}(); use "
                                    f"{GPU_TEST_FUNCTION} (cmake/HazardlabTesting.cmake), which hands it a GPU")
                    continue
            if command in ("add_test", "set_tests_properties", "set_property") and HELD_BY_HAND.search(text):
                problems.append(f"{relative}:{number}: takes a GPU by hand ({HELD_BY_HAND.search(text).group(0)}); "
                                f"register the test with {GPU_TEST_FUNCTION} (cmake/HazardlabTesting.cmake)")
    return problems


HARNESS_TESTS = "tests"  # the harness's self-tests: no layer, they may include every layer, and no cap


def check(root: Path) -> list[str]:
    harness = root / "harness"
    layers = declared_folders(harness)
    problems = []
    for path in sorted(harness.rglob("*")):
        if not path.is_file() or path.name == "CMakeLists.txt":
            continue
        relative = path.relative_to(harness)
        folder = relative.parts[0] if len(relative.parts) > 1 else ""
        if folder == HARNESS_TESTS and len(relative.parts) == 2:
            problems += [f"harness/{relative}:{number}: includes \"{include}\" from no declared folder"
                         for number, include in harness_includes(path) if include.split("/")[0] not in layers]
            continue
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
            if include != "hazard/define.hpp":
                problems.append(f"{path.relative_to(root)}:{number}: includes \"{include}\"; a hazard includes "
                                "hazard/define.hpp and nothing else of the harness")
    problems += house_floors(root)
    problems += tests_beside_their_library(root)
    problems += checker_programs_apart(root)
    problems += lessons_stand_alone(root)
    problems += measurement_group_as_text(root)
    problems += process_log_read_by_key(root)
    problems += observation_read_by_key(root)
    problems += hash_written_again(root)
    problems += cuda_check_written_again(root)
    problems += exit_mapped_again(root)
    problems += planned_once(root)
    problems += measurement_seam(root)
    problems += sabotage_switch_in_hazards(root)
    problems += getenv_outside_the_reader(root)
    problems += setting_spelled_again(root)
    problems += trials_receive_trial_settings(root)
    problems += checker_layers(root)
    problems += sources_within_the_cap(root)
    problems += state_outside_its_home(root)
    problems += cli11_reads_a_number(root)
    problems += gpu_tests_registered_once(root)
    return problems


# Each rule broken on purpose: (what is broken, file to write relative to the copy, its text, a
# fragment the lint's complaint must hold).
BREAKAGES = [
    ("a program checks a number with CLI11's Range", "checker/programs/broken_range.cpp",
     'void f(CLI::App& app, int& n) {\n  app.add_option("--n", n)->check(CLI::Range(1, 9));\n}\n',
     "checker/programs/broken_range.cpp:2: checks a number with CLI11's own check"),
    ("a program hands CLI11 a whole number as typed", "tools/broken_octal.cpp",
     'void f(CLI::App& app, int& n) {\n  app.add_option("--n", n)->check(cli::whole_number(1, 9));\n}\n',
     "tools/broken_octal.cpp:2: checks a number with CLI11's own check or ->check(cli::whole_number)"),
    ("a hazard reads the sabotage switch", "hazards/broken_guard.cpp",
     '#include "hazard/define.hpp"\nvoid f(const hazardlab::Settings& s) { if (!s.sabotage_guards) wait(); }\n',
     "broken_guard.cpp:2: reads sabotage_guards"),
    ("a hazard includes a harness header", "hazards/broken_include.cpp", '#include "hold/fence.hpp"\n',
     "broken_include.cpp:1: includes \"hold/fence.hpp\""),
    ("a tool reads the environment itself", "tools/broken_getenv.cpp",
     '#include <cstdlib>\nconst char* lock = std::getenv("HAZARDLAB_HOST_LOCK");\n',
     "tools/broken_getenv.cpp:2: calls getenv"),
    ("a tool sets a setting by its spelling", "tools/broken_name.cpp",
     '#include <cstdlib>\nvoid f() { ::setenv("HAZARDLAB_PROFILE", "health", 1); }\n',
     "tools/broken_name.cpp:2: spells a setting's name"),
    ("the record looks a setting up by its spelling", "reports/src/broken_lookup.cpp",
     'auto* s = run.setting("HAZARDLAB_MIN_OVERLAP");\n', "reports/src/broken_lookup.cpp:1: spells a setting's name"),
    ("the record includes the harness, a floor above it", "record/src/broken_up.cpp", '#include "cuda/check.hpp"\n',
     "record/src/broken_up.cpp:1: record/ includes \"cuda/check.hpp\" of harness/, which stands above it"),
    ("the reports include the harness, beside them", "reports/src/broken_beside.cpp",
     '#include "plan/run_plan.hpp"\n',
     "reports/src/broken_beside.cpp:1: reports/ includes \"plan/run_plan.hpp\" of harness/, which stands beside it"),
    ("a folder of code on no floor", "annex/broken_room.cpp", '#include "hazardlab/result.hpp"\n',
     "annex/: holds code but stands on no floor of the house"),
    ("a report compares a measurement group as text", "reports/src/broken_group.cpp",
     'bool b(const PerfRecord& p) { return p.part == "bandwidth"; }\n',
     "reports/src/broken_group.cpp:1: compares a measurement group as text"),
    ("the checker's report reads a process-log key itself", "checker/launch/broken_log_read.cpp",
     'long n(const nlohmann::json& stats) { return stats.value("neighbour_faults", 0L); }\n',
     "checker/launch/broken_log_read.cpp:1: reads a process-log key as JSON"),
    ("a report reads an observation by its key", "reports/src/broken_observation.cpp",
     'auto w = result["observations"]["race_window"];\n',
     "reports/src/broken_observation.cpp:1: handles a variant's observation by its JSON key"),
    ("a hash written again", "reports/src/broken_hash.cpp",
     'std::uint64_t h(char c, std::uint64_t h) { return (h ^ c) * 1099511628211ull; }\n',
     "reports/src/broken_hash.cpp:1: writes FNV-1a again"),
    ("a tool defines its own CUDA check", "tools/broken_check.cpp",
     '#define CUDA_OK(call) if ((call) != cudaSuccess) std::exit(1)\n',
     "tools/broken_check.cpp:1: defines a CUDA check again"),
    ("a checker program defines its own CUDA check", "checker/programs/broken_check.cu",
     '#define CHECK(call) (void)(call)\n', "checker/programs/broken_check.cu:1: defines a CUDA check again"),
    ("a tool maps its own parse errors", "tools/broken_main.cpp",
     'try { app.parse(argc, argv); } catch (const CLI::ParseError& e) { return app.exit(e); }\n',
     "tools/broken_main.cpp:1: maps a command-line error to an exit status itself"),
    ("the fault path keeps an atomic of its own", "checker/fault/broken_state.cpp",
     'namespace hazardlab::check {\nnamespace {\nstd::atomic<int> faults{0};\n}  // namespace\n}\n',
     "checker/fault/broken_state.cpp:3: keeps state at file scope"),
    ("the fault path keeps an object of its own that is never destroyed", "checker/fault/broken_new.cpp",
     'struct Path {\n  int n = 0;\n};\nPath& path = *new Path;\nvoid f() { static int calls = 0; }\n',
     "checker/fault/broken_new.cpp:4: keeps state at file scope"),
    ("the fault path keeps a thread's state of its own", "checker/fault/broken_tls.cpp",
     'namespace {\nthread_local Steps steps __attribute__((tls_model("initial-exec")));\n}\n',
     "checker/fault/broken_tls.cpp:2: keeps state at file scope"),
    ("the fault path keeps a function's static object", "checker/fault/broken_function_static.cpp",
     'int next() {\n  static int calls = 0;\n  return ++calls;\n}\n',
     "checker/fault/broken_function_static.cpp:2: keeps state at file scope"),
    ("the injected library keeps a process-wide object at namespace scope", "checker/inject/broken_global.cpp",
     'namespace hazardlab::check::inject {\nstd::atomic<bool> entered{false};\n}  // namespace\n',
     "checker/inject/broken_global.cpp:2: keeps state at file scope"),
    ("the injected library keeps a function's static object, never destroyed", "checker/inject/broken_static.cpp",
     'namespace {\nLayouts& layouts() {\n  static auto* l = new Layouts;\n  return *l;\n}\n}  // namespace\n',
     "checker/inject/broken_static.cpp:3: keeps state at file scope"),
    ("the injected library keeps a thread's state of its own", "checker/inject/broken_tls.hpp",
     'inline thread_local bool inside_our_call = false;\n',
     "checker/inject/broken_tls.hpp:1: keeps state at file scope"),
    ("a new long file in the injected library", "checker/inject/broken_long.cpp", "int x();\n" * 260,
     "checker/inject/broken_long.cpp: 260 lines, more than 250"),
    ("a new long file in the fault path", "checker/fault/broken_long.cpp", "int x();\n" * 251,
     "checker/fault/broken_long.cpp: 251 lines, more than 250"),
    ("the checker's core includes the injected library", "checker/core/broken_inject.cpp",
     '#include "checker/inject/session.hpp"\n', "checker/core/broken_inject.cpp:1: core/ includes checker/inject/"),
    ("the injected library declared below the core", "checker/CMakeLists.txt",
     "set(HAZARDLAB_CHECKER_LAYERS\n  inject\n  core threads fault launch agreement programs benchmarks tests python "
     "pytest corpus)\n", "checker/CMakeLists.txt: inject/ is declared below core/"),
    ("a checker file outside its rooms", "checker/annex/broken.cpp", "int f();\n",
     "checker/annex/broken.cpp: not in one of the declared rooms"),
    ("the checker's core includes the fault path above it", "checker/core/broken_up.cpp",
     '#include "checker/fault/fault_handler.hpp"\n', "checker/core/broken_up.cpp:1: core/ includes checker/fault/"),
    ("a checker source past the cap, unnamed", "checker/launch/broken_long.cpp", "int x();\n" * 260,
     "checker/launch/broken_long.cpp: 260 lines, more than 250"),
    ("a checker Python driver past the cap, unnamed", "checker/corpus/broken_long.py", "x = 1\n" * 260,
     "checker/corpus/broken_long.py: 260 lines, more than 250: split it into modules"),
    ("the pytest plugin past the cap, unnamed", "checker/pytest/broken_plugin.py", "x = 1\n" * 251,
     "checker/pytest/broken_plugin.py: 251 lines, more than 250"),
    ("a report's source past the cap, unnamed", "reports/src/broken_long.cpp", "int x();\n" * 260,
     "reports/src/broken_long.cpp: 260 lines, more than 250: split it by concern"),
    ("a GPU runner past the cap, unnamed", "cases/gpu/broken_long.cpp", "int x();\n" * 251,
     "cases/gpu/broken_long.cpp: 251 lines, more than 250: split it by concern"),
    ("a library's test left in cases/", "cases/selftests/test_broken.cpp", '#include "hazardlab/report.hpp"\n',
     "cases/selftests/test_broken.cpp: a test of one library, standing in cases/"),
    ("a folder of cases/ the layout does not name", "cases/record_tests/test_broken.cpp",
     '#include "hazardlab/result.hpp"\n', "cases/record_tests/ is not a folder of cases/ that the layout names"),
    ("a harness layer includes the harness's tests", "harness/plan/broken_tests.cpp", '#include "tests/fake_plan.hpp"\n',
     "harness/plan/broken_tests.cpp:1: includes \"tests/fake_plan.hpp\" from no declared folder"),
    ("a benchmark among the checker's GPU programs", "checker/programs/broken_benchmark.cpp", "int main() {}\n",
     "checker/programs/broken_benchmark.cpp: a benchmark among the checker's GPU programs"),
    ("a benchmark by its opening among the checker's GPU programs", "checker/programs/broken_timing.cu",
     "// Times the loop. A benchmark, not a test.\nint main() {}\n",
     "checker/programs/broken_timing.cu: a benchmark among the checker's GPU programs"),
    ("a test in checker/benchmarks/ of no file beside it", "checker/benchmarks/test_broken.py", "import sys\n",
     "checker/benchmarks/test_broken.py: a test in checker/benchmarks/ tests the file beside it"),
    ("a lesson includes the project", "lessons/broken_lesson.cu", '#include "hazardlab/result.hpp"\n',
     "lessons/broken_lesson.cu:1: a lesson includes \"hazardlab/result.hpp\""),
    ("a lesson defines its own CUDA check", "lessons/broken_check.cu", '#define CHECK(call) (void)(call)\n',
     "lessons/broken_check.cu:1: defines a CUDA check again"),
    ("a lesson registered with add_test", "lessons/broken.cmake",
     "add_executable(lesson-broken broken.cu)\nadd_test(NAME lesson/broken COMMAND lesson-broken --trials 2)\n",
     "lessons/broken.cmake:2: registers a GPU test with add_test()"),
    ("a checker program's test given GPU 0's lock by hand", "checker/programs/broken.cmake",
     "set_tests_properties(check/x PROPERTIES LABELS check SKIP_RETURN_CODE 77 RESOURCE_LOCK gpu0)\n",
     "checker/programs/broken.cmake:1: takes a GPU by hand (RESOURCE_LOCK gpu0)"),
    ("the checker's driver registered by a function of its own around add_test", "checker/programs/broken_own.cmake",
     "set(_expect python3 expect_check.py hazardlab)\nfunction(my_check name)\n  add_test(NAME check/${name} COMMAND "
     "${ARGN})\nendfunction()\nmy_check(x ${_expect} clean -- prog)\n",
     "checker/programs/broken_own.cmake:5: registers a GPU test with my_check()"),
    ("a GPU named by hand in a test's environment", "cases/broken.cmake",
     "set_tests_properties(x PROPERTIES ENVIRONMENT CUDA_VISIBLE_DEVICES=1)\n",
     "cases/broken.cmake:1: takes a GPU by hand (CUDA_VISIBLE_DEVICES)"),
    ("ctest's resources asked for by hand", "checker/programs/broken_groups.cmake",
     "set_property(TEST check/x PROPERTY RESOURCE_GROUPS gpus:1)\n",
     "checker/programs/broken_groups.cmake:1: takes a GPU by hand (RESOURCE_GROUPS)"),
    ("a trial receives every setting", "hazards/broken_trial.cpp",
     '#include "hazard/define.hpp"\nTrialObservation t(Rig& rig, const TrialCase& c, const Settings& s);\n',
     "hazards/broken_trial.cpp:2: a trial receives the whole Settings"),
]


def self_test(root: Path = Path(__file__).resolve().parents[2]) -> int:
    """The tree as it is passes; a copy of it with each rule broken fails, naming the break. Without a SOURCE_DIR,
    the tree this lint stands in."""
    failures = [] if not check(root) else ["the tree itself does not pass"]
    for what, relative, text, expected in BREAKAGES:
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch)
            for folder in ("harness", "hazards", "record", "reports", "cmake", "checker", "cases", "lessons"):
                shutil.copytree(root / folder, copy / folder)
            (copy / relative).parent.mkdir(parents=True, exist_ok=True)
            (copy / relative).write_text(text)
            problems = check(copy)
            if not any(expected in p for p in problems):
                failures.append(f"{what}: the lint did not say '{expected}' (it said {problems})")
    failures += measurement_seam_self_test()
    failures += source_cap_self_test()
    failures += checker_python_cap_self_test()
    failures += checker_exceptions_self_test()
    for f in failures:
        print(f)
    print(f"{len(BREAKAGES)} breakage(s), the measurement seam, the source cap and the checker's exceptions checked; "
          f"{len(failures)} not caught")
    return 1 if failures else 0


def main() -> int:
    if sys.argv[1] == "--self-test":
        return self_test(Path(sys.argv[2]))
    root = Path(sys.argv[1])
    problems = check(root)
    for p in problems:
        print(p)
    for name, reason in {**CHECKER_LONG_SOURCES, **CHECKER_LONG_TEST_PROGRAMS, **LONG_SOURCES}.items():
        print(f"past the cap: {name}: {reason}")
    layers = declared_folders(root / "harness")
    print(f"{len(layers)} layers {layers}; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main())
