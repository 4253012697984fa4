#!/usr/bin/env python3
"""The side-by-side driver with stand-ins for the lessons, the PyTorch programs' interpreter, compute-sanitizer
and hazardlab (no GPU): each tool's verdict read as the tool writes it, a lesson's findings told to its half by
their stacks, a run that does not end stopped (and the next run still made), a missing compute-sanitizer said
so, the budget honoured, and bad input refused (exit 2). Nothing here is a timing.

Usage: test_side_by_side.py SOURCE_DIR"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

from refusals import refusals

# A lesson: both halves in one process; lesson-cross-stream-no-event exits 1 (its unsafe half did not go wrong).
LESSON = """#!/bin/sh
echo "unsafe: the consumer read the stale buffer in 2 of 2 trials"
echo "fixed:  the consumer read the produced data in 2 of 2 trials"
case "$0" in *cross-stream*) exit 1 ;; esac
"""
# The interpreter: `-c "import torch; ..."` prints PyTorch's version; stream_races.py SCENARIO FORM prints its line; under PyTorch's
# sanitizer the unsafe forms raise its error.
PYTHON = """#!/bin/sh
[ "$1" = "-c" ] && { echo "torch 2.5.0"; exit 0; }
scenario=$2; form=$3
if [ "$TORCH_CUDA_SANITIZER" = "1" ] && [ "$form" = "unsafe" ]; then
  echo "torch.cuda._sanitizer.CUDASanitizerErrors: detected 1 error"; echo "CSAN detected a possible data race on tensor"
  exit 1
fi
echo "$scenario $form: result right"
"""
# compute-sanitizer --tool TOOL PROGRAM...: memcheck never ends on torch-record-stream guarded; racecheck reports
# a hazard in the cross-stream lesson's unsafe half; synccheck prints no summary on torch-wait-stream unsafe.
SANITIZER = """#!/bin/sh
tool=$2; shift 2
case "$tool $*" in
  "memcheck "*"torch-record-stream guarded") exec sleep 30 ;;
esac
"$@"
case "$tool $*" in
  "racecheck "*lesson-cross-stream*)
    echo "========= Error: Race reported between Write access at fill_kernel"
    echo "=========     Host Frame: unsafe(unsigned char*, unsigned char*) in lesson [0x1234]"
    echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)" ;;
  "racecheck "*) echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" ;;
  "synccheck "*"torch-wait-stream unsafe") echo "========= Error: the tool broke" ;;
  *) echo "========= ERROR SUMMARY: 0 errors" ;;
esac
"""
# hazardlab check --json REPORT -- PROGRAM...: the lessons found in the unsafe half; the PyTorch programs' unsafe
# forms found (in Python frames), the guarded ones clean.
HAZARDLAB = """#!/bin/sh
[ "$1 $2" = "check --help" ] && { echo "hazardlab check: a stand-in"; exit 0; }
report=$3; shift 4
"$@" > /dev/null
case "$*" in
  *lesson-legacy*|*lesson-cross*) stack='[{"function": "fill_kernel"}, {"function": "unsafe"}, {"function": "main"}]'
    echo "{\\"verdict\\": \\"found\\", \\"processes\\": [{\\"findings\\": [{\\"finding\\": {\\"hazard\\": \\"cross-stream-no-event\\"}, \\"copy_stack\\": $stack, \\"access_stack\\": []}]}]}" > "$report"; exit 66 ;;
  *unsafe) echo '{"verdict": "found", "processes": [{"findings": [{"finding": {"hazard": "legacy-stream-nonblocking-consumer"}, "copy_stack": [], "access_stack": [], "copy_python": [{"function": "torch_wait_stream"}]}]}]}' > "$report"; exit 66 ;;
  *) echo '{"verdict": "clean", "processes": [{"findings": []}]}' > "$report" ;;
esac
"""


def write(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def rows(markdown: str) -> dict[tuple[str, str], list[str]]:
    out = {}
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and cells[1] in ("unsafe", "fixed", "guarded"):
            out[(cells[0], cells[1])] = cells[3:]
    return out


def main() -> int:
    failures = []
    with tempfile.TemporaryDirectory(prefix="hazardlab-side-by-side-") as scratch:
        folder = Path(scratch)
        # The driver runs from a copy of its folders: a refusal that failed would write over the copy's sources.
        source = folder / "source"
        for part in ("benchmarks", "python", "drivers"):
            shutil.copytree(Path(sys.argv[1]) / "checker" / part, source / "checker" / part)
        (source / "checker" / "programs").mkdir()
        shutil.copy(Path(sys.argv[1]) / "checker" / "programs" / "checked_report.py", source / "checker" / "programs")
        driver = source / "checker" / "benchmarks" / "side_by_side.py"
        (folder / "build" / "lessons").mkdir(parents=True)
        for lesson in ("lesson-legacy-stream-nonblocking-consumer", "lesson-cross-stream-no-event"):
            write(folder / "build" / "lessons" / lesson, LESSON)
        base = [sys.executable, str(driver), "--hazardlab", write(folder / "hl", HAZARDLAB), "--build-dir",
                str(folder / "build"), "--python", write(folder / "python", PYTHON)]
        sanitizer = write(folder / "cs", SANITIZER)
        run = subprocess.run(base + ["--compute-sanitizer", sanitizer, "--timeout", "3", "--markdown",
                                     str(folder / "table.md"), "--json", str(folder / "table.json")],
                             capture_output=True, text=True, timeout=120)
        table = rows((folder / "table.md").read_text()) if (folder / "table.md").exists() else {}
        # alone, memcheck, racecheck, synccheck, PyTorch's sanitizer, hazardlab check: the first word of each cell.
        want = {
            ("lesson-legacy-stream-nonblocking-consumer", "unsafe"): ["ran", "clean", "clean", "clean", "-", "found"],
            ("lesson-legacy-stream-nonblocking-consumer", "fixed"): ["ran", "clean", "clean", "clean", "-", "clean"],
            ("lesson-cross-stream-no-event", "unsafe"): ["ran", "clean", "found", "clean", "-", "found"],
            ("lesson-cross-stream-no-event", "fixed"): ["ran", "clean", "clean", "clean", "-", "clean"],
            ("torch-wait-stream", "unsafe"): ["ran", "clean", "clean", "error", "found", "found"],
            ("torch-wait-stream", "guarded"): ["ran", "clean", "clean", "clean", "clean", "clean"],
            ("torch-record-stream", "unsafe"): ["ran", "clean", "clean", "clean", "found", "found"],
            ("torch-record-stream", "guarded"): ["ran", "timeout", "clean", "clean", "clean", "clean"],
        }
        got = {key: [c.split()[0] for c in cells] for key, cells in table.items()}
        if run.returncode != 0 or got != want:
            failures.append(f"the table: exit {run.returncode}, got {got}, not {want}:\n{run.stdout}{run.stderr}")
        text = (folder / "table.md").read_text() if (folder / "table.md").exists() else ""
        for said in ("stopped after 3 s", "no summary from compute-sanitizer",
                     "hazardlab check: found: cross-stream-no-event", " s ("):
            if said not in text:
                failures.append(f"the table does not say {said!r}:\n{text}")
        if (folder / "table.json").exists() and len(json.loads((folder / "table.json").read_text())) != 2 * 2 * 5 + 4 * 6:
            failures.append("the JSON does not hold one entry per program, form and tool")
        # No compute-sanitizer found, none given and no tool of it named: its columns say so, the others still run.
        if not Path("/usr/local/cuda/bin/compute-sanitizer").exists():
            run = subprocess.run(base + ["--programs", "torch-wait-stream"], capture_output=True, text=True,
                                 timeout=60, env={**os.environ, "PATH": "/usr/bin:/bin"})
            got = {key: [c.split()[0] for c in cells] for key, cells in rows(run.stdout).items()}
            if run.returncode != 0 or "not available" not in run.stdout \
                    or got.get(("torch-wait-stream", "unsafe")) != ["ran", "not", "not", "not", "found", "found"]:
                failures.append(f"no compute-sanitizer: exit {run.returncode}, rows {got}:\n{run.stdout}{run.stderr}")
        # A budget spent by a run that does not end: it is stopped when the budget is, and the next is not run.
        run = subprocess.run(base + ["--compute-sanitizer", sanitizer, "--budget-s", "1.5", "--timeout", "5",
                                     "--programs", "torch-record-stream", "--tools", "memcheck,racecheck"],
                             capture_output=True, text=True, timeout=60)
        got = {key: [c.split()[0] for c in cells] for key, cells in rows(run.stdout).items()}
        if run.returncode != 0 or got.get(("torch-record-stream", "guarded"), [""])[1:3] != ["timeout", "not"] \
                or "the budget (--budget-s) was spent" not in run.stdout:
            failures.append(f"a spent budget: exit {run.returncode}, rows {got}, not 0 saying so:\n{run.stdout}")
        table_md = str(folder / "table.md")
        python_folder = source / "checker" / "python"
        missing_module = str(python_folder / "missing_module.py")
        verdicts = str(source / "checker" / "benchmarks" / "side_by_side_verdicts.py")
        linked = folder / "races-link.txt"
        os.link(python_folder / "stream_races.py", linked)
        lesson_only = ["--programs", "lesson-cross-stream-no-event"]
        lesson = folder / "build" / "lessons" / "lesson-cross-stream-no-event"
        failures += refusals(base, (
            (["--tools", "valgrind"], "argument --tools: 'valgrind' is not allowed; expected each item one of"),
            (["--programs", "nothing"], "argument --programs: 'nothing' is not allowed; expected each item one of"),
            (["--timeout", "0"], "argument --timeout: '0' is not allowed; expected a number of seconds"),
            (["--tools", "hazardlab,hazardlab"], "'hazardlab' is given twice"),
            (["--budget-s", "nan"], "argument --budget-s: 'nan' is not allowed"),
            # Outputs are checked before the runs: never a traceback after them, never one file written over another.
            (["--markdown", scratch], f"argument --markdown: '{scratch}' is not allowed; expected a file to write; "
                                      "it is a folder"),
            (["--json", str(folder / "missing" / "t.json")], "expected a file to write in a folder that exists"),
            (["--json", table_md, "--markdown", table_md], f"--markdown '{table_md}' is the same file as --json"),
            (["--markdown", str(folder / "hl")], "is the same file as --hazardlab"),
            # A table of cells that cannot run says nothing: a compute-sanitizer given that does not run, a budget
            # under the second a run needs to start.
            (["--compute-sanitizer", str(folder / "none"), "--tools", "memcheck"],
             f"--compute-sanitizer '{folder / 'none'}' is not a runnable file, and --tools asks for memcheck"),
            (["--tools", "racecheck,hazardlab"], "is not a runnable file, and --tools asks for racecheck"),
            (["--compute-sanitizer", sanitizer, "--tools", "hazardlab"], "--tools names none of its tools"),
            (["--budget-s", "0.5"], "argument --budget-s: '0.5' is not allowed; expected a number of seconds from 1"),
            # Never an output over a program it runs, nor among the build's lessons.
            (["--markdown", str(lesson)], f"--markdown '{lesson}' is a program this runs"),
            (["--json", str(folder / "build" / "lessons" / "table.json")], "among the build's lessons"),
            # Nor over a source the PyTorch programs import, this driver's own, or a hard link to one of them.
            (["--markdown", missing_module], f"--markdown '{missing_module}' is a program this runs"),
            (["--json", verdicts], f"--json '{verdicts}' is a program this runs"),
            (["--markdown", str(linked)], f"--markdown '{linked}' is a program this runs"),
            # An option that would change nothing: no PyTorch program to run it, or to run PyTorch's sanitizer on.
            (["--programs", "lesson-cross-stream-no-event"], "--python '" + str(folder / "python") + "' is given"),
            (["--compute-sanitizer", ""], "--compute-sanitizer '' is blank")),
            timeout=60, env={**os.environ, "PATH": "/usr/bin:/bin"})
        without_build = [word for word in base if word not in ("--build-dir", str(folder / "build"))]
        failures += refusals(without_build, (
            (["--build-dir", str(folder / "nothing")], "argument --build-dir: '" + str(folder / "nothing")[:30]),
            # A build without the lessons asked for: every cell would say "not built", and the exit status 0.
            (["--build-dir", scratch], f"--build-dir '{scratch}': {scratch}/lessons/lesson-legacy-stream-"
                                       "nonblocking-consumer is not a runnable file")), timeout=60)
        without_python = [word for word in base if word not in ("--python", str(folder / "python"))]
        failures += refusals(without_python, ((["--python", "/no/such"],
                                               "argument --python: '/no/such' is not allowed; expected a runnable file"),
                                              (["--hazardlab", "/bin/true"], "argument --hazardlab: '/bin/true'"),
                                              (["--tools", "torch-sanitizer,hazardlab"] + lesson_only,
                                               "--tools names torch-sanitizer, and --programs names none")),
                             timeout=60)
        # A program that exits 0 and prints nothing is no interpreter with PyTorch: its programs are not run.
        run = subprocess.run(without_python + ["--python", "/bin/true", "--programs", "torch-wait-stream", "--tools",
                                               "hazardlab"], capture_output=True, text=True, timeout=60)
        if run.returncode != 0 or "/bin/true cannot import torch" not in run.stdout:
            failures.append(f"--python /bin/true: exit {run.returncode}, not 0 saying it cannot import torch:\n"
                            f"{run.stdout}{run.stderr}")
    for f in failures:
        print(f)
    print(f"{len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
