#!/usr/bin/env python3
"""The build takes nothing from the network: libunwind's module (cmake/HazardlabLibunwind.cmake) names no address
and builds from the staged archive alone, the dev preset refuses FetchContent's downloads
(FETCHCONTENT_FULLY_DISCONNECTED), and the dev preset's build was configured that way, so that CI's one build,
which is that build, shows every other dependency found without a download.

Usage: test_offline_build.py SOURCE_DIR BUILD_DIR
       test_offline_build.py --self-test SOURCE_DIR   (each rule, broken on purpose, must fail)"""
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

LIBUNWIND = Path("cmake/HazardlabLibunwind.cmake")
PRESETS = Path("CMakePresets.json")
DEV = "dev"
SWITCH = "FETCHCONTENT_FULLY_DISCONNECTED"
TRUE = {"on", "true", "yes", "y", "1"}
ADDRESS = re.compile(r"\b[a-z][a-z0-9+.-]*://|\bwww\.|\bgit@|"
                     r"\b(?:[a-z0-9-]+\.)+(?:org|com|net|io|dev|edu|gov|info|eu|de|uk|fr|jp|cn|ru|us|co|app|cloud)\b")
REMOTE_SOURCE = re.compile(r"\b(?:GIT_REPOSITORY|SVN_REPOSITORY|HG_REPOSITORY|CVS_REPOSITORY)\b|file\s*\(\s*DOWNLOAD")
LOCAL_ARCHIVE = '"${HAZARDLAB_LIBUNWIND_ARCHIVE}"'


def libunwind_names_no_address(root: Path) -> list[str]:
    problems = []
    for number, line in enumerate((root / LIBUNWIND).read_text().splitlines(), 1):
        if ADDRESS.search(line):
            problems.append(f"{LIBUNWIND}:{number}: names an address ({ADDRESS.search(line).group(0)}); libunwind "
                            "is built from the staged archive alone (tools/deps/stage-deps)")
        if REMOTE_SOURCE.search(line.split("#")[0]):
            problems.append(f"{LIBUNWIND}:{number}: fetches from a repository or a download; libunwind is built "
                            "from the staged archive alone")
        url = re.match(r"\s*URL\s+(\S+)", line.split("#")[0])
        if url and url.group(1) != LOCAL_ARCHIVE:
            problems.append(f"{LIBUNWIND}:{number}: URL is {url.group(1)}; the one allowed is {LOCAL_ARCHIVE}, the "
                            "archive found on this machine")
    return problems


def dev_preset(root: Path) -> dict:
    presets = json.loads((root / PRESETS).read_text())["configurePresets"]
    return next((p for p in presets if p.get("name") == DEV), {})


def switched_on(value) -> bool:
    if isinstance(value, dict):
        value = value.get("value")
    return str(value).strip().lower() in TRUE


def dev_preset_disconnected(root: Path) -> list[str]:
    preset = dev_preset(root)
    if not preset:
        return [f"{PRESETS}: no configure preset '{DEV}'"]
    value = preset.get("cacheVariables", {}).get(SWITCH)
    if not switched_on(value):
        return [f"{PRESETS}: the {DEV} preset sets {SWITCH} to {value!r}; it must be ON, so that its build (CI's) "
                "shows that nothing is downloaded"]
    return []


def build_disconnected(root: Path, build: Path) -> list[str]:
    """The dev preset's build had downloads refused when it was configured; another build is not judged."""
    binary_dir = dev_preset(root).get("binaryDir", "").replace("${sourceDir}", str(root))
    if not binary_dir or os.path.realpath(build) != os.path.realpath(binary_dir):
        print(f"{build}: not the {DEV} preset's build; its configuration is not judged")
        return []
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        return [f"{cache}: missing; configure the {DEV} preset first"]
    found = re.search(rf"^{SWITCH}:\w+=(.*)$", cache.read_text(), flags=re.M)
    value = found.group(1) if found else "unset"
    if not switched_on(value):
        return [f"{build}: configured with {SWITCH} {value}; the {DEV} preset's build must refuse downloads"]
    return []


def check(root: Path, build: Path) -> list[str]:
    return libunwind_names_no_address(root) + dev_preset_disconnected(root) + build_disconnected(root, build)


def dev_cache(value: str) -> str:
    return f"CMAKE_BUILD_TYPE:STRING=Debug\n{SWITCH}:BOOL={value}\n"


def without_switch(presets: str) -> str:
    return re.sub(rf'\s*"{SWITCH}":\s*"[^"]*",?', "", presets)


# Each rule broken on purpose: (what is broken, file to change relative to the copy, how, a fragment the
# complaint must hold).
BREAKAGES = [
    ("libunwind's module names a web address again", LIBUNWIND,
     lambda text: text + "# a mirror: https://downloads.example.org/libunwind.tar.gz\n", "names an address"),
    ("libunwind's module names a host", LIBUNWIND,
     lambda text: text + "# or from downloads.example.org\n", "names an address (downloads.example.org)"),
    ("libunwind's module fetches from a list of URLs", LIBUNWIND,
     lambda text: text.replace(f"URL {LOCAL_ARCHIVE}", "URL ${_hl_unwind_urls}"), "URL is ${_hl_unwind_urls}"),
    ("libunwind's module clones a repository", LIBUNWIND,
     lambda text: text + "ExternalProject_Add(x\n  GIT_REPOSITORY ${_hl_repository})\n", "fetches from a repository"),
    ("the dev preset lets downloads through", PRESETS, without_switch, f"the {DEV} preset sets {SWITCH} to None"),
    ("the dev build was configured with downloads", Path("build/dev/CMakeCache.txt"),
     lambda text: dev_cache("OFF"), f"configured with {SWITCH} OFF"),
]


def self_test(root: Path) -> int:
    """A copy of the tree, with a dev build configured offline, passes; with each rule broken, it fails."""
    failures = []
    for what, relative, change, expected in [("nothing", None, None, None)] + BREAKAGES:
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch)
            (copy / LIBUNWIND).parent.mkdir(parents=True)
            shutil.copy(root / LIBUNWIND, copy / LIBUNWIND)
            shutil.copy(root / PRESETS, copy / PRESETS)
            build = copy / "build" / DEV
            build.mkdir(parents=True)
            (build / "CMakeCache.txt").write_text(dev_cache("ON"))
            if relative is None:
                if check(copy, build):
                    failures.append(f"the tree as it is fails: {check(copy, build)}")
                continue
            (copy / relative).write_text(change((copy / relative).read_text()))
            problems = check(copy, build)
            if not any(expected in p for p in problems):
                failures.append(f"{what}: the check did not say '{expected}' (it said {problems})")
    for f in failures:
        print(f)
    print(f"{len(BREAKAGES)} breakage(s) checked; {len(failures)} not caught")
    return 1 if failures else 0


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--self-test":
        return self_test(Path(sys.argv[2]))
    if len(sys.argv) != 3 or sys.argv[1].startswith("-"):
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    root, build = Path(sys.argv[1]), Path(sys.argv[2])
    problems = check(root, build)
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
