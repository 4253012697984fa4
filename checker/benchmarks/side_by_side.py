#!/usr/bin/env python3
"""The same stream races under compute-sanitizer (memcheck, racecheck, synccheck), PyTorch's CUDA Sanitizer and
`hazardlab check`, side by side, each run's wall time beside the program's alone:

  lesson-legacy-stream-nonblocking-consumer, lesson-cross-stream-no-event: the two plain-CUDA stream lessons,
      whose one process runs the unsafe half and then the fixed half (--trials 2). A tool's findings are told to a
      half by the functions of their stacks (`unsafe`, `fixed`); both rows share the one run and its time.
  torch-wait-stream, torch-record-stream (checker/python/stream_races.py): each form a run of its own.

Each cell: found, clean, error (the tool or the program failed; why is listed under the table), timeout, not
available (no compute-sanitizer found, where neither --compute-sanitizer nor --tools was given), not run (the
budget was spent, or the interpreter cannot import PyTorch), or - (PyTorch's sanitizer on a program without PyTorch);
then the run's wall seconds and their ratio to the program alone.

Usage: side_by_side.py --hazardlab HAZARDLAB --build-dir BUILD [--python PYTHON] [--compute-sanitizer PATH]
           [--tools memcheck,racecheck,synccheck,torch-sanitizer,hazardlab] [--programs NAME,...]
           [--timeout SECONDS] [--budget-s SECONDS] [--json FILE] [--markdown FILE]
BUILD holds lessons/lesson-*. Runs go cheapest first: the lessons, then the PyTorch programs, each alone, then
under hazardlab check, PyTorch's sanitizer and compute-sanitizer's tools; each is stopped after --timeout, and
once --budget-s is spent the rest are not run. A comparison, not a test: it asserts nothing. Exit status 0 when
the table was made, 1 when a file it names could not be written, 2 for bad input (checker/drivers/driver_options.py:
checked before anything runs, --json and --markdown included; a lesson asked for and not built, a compute-sanitizer
that does not run where one is given or its tools are named, a budget under a second, an output on a program it
runs or among BUILD/lessons)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STREAM_RACES = os.path.normpath(os.path.join(HERE, os.pardir, "python", "stream_races.py"))
CHECKED_REPORT = os.path.normpath(os.path.join(HERE, os.pardir, "programs", "checked_report.py"))  # the verdicts'
from bounded_runs import Stopped, run_bounded, stop_on_sigterm, torch_version
from side_by_side_verdicts import Run, judge_alone, judge_hazardlab, judge_sanitizer, judge_torch_sanitizer

sys.path.insert(0, os.path.join(HERE, os.pardir, "drivers"))
from driver_options import (DriverParser, existing_folder, hazardlab_program, listed, output_file,  # noqa: E402
                            runnable_file, seconds, write_output)

LESSONS = ("lesson-legacy-stream-nonblocking-consumer", "lesson-cross-stream-no-event")
TORCH_PROGRAMS = ("torch-wait-stream", "torch-record-stream")
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck")
TOOLS = SANITIZER_TOOLS + ("torch-sanitizer", "hazardlab")
TITLES = {"alone": "alone", "memcheck": "memcheck", "racecheck": "racecheck", "synccheck": "synccheck",
          "torch-sanitizer": "PyTorch CUDA Sanitizer", "hazardlab": "hazardlab check"}
ORDER = ("alone", "hazardlab", "torch-sanitizer", "memcheck", "synccheck", "racecheck")  # cheapest first
def execute(run: Run, args, timeout: float) -> None:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="hazardlab-side-by-side-") as scratch:
        report = os.path.join(scratch, "check.json")
        if run.tool == "alone":
            argv = run.argv
        elif run.tool == "hazardlab":
            argv = [args.hazardlab, "check", "--json", report, "--"] + run.argv
        elif run.tool == "torch-sanitizer":
            argv, env["TORCH_CUDA_SANITIZER"] = run.argv, "1"
        else:
            argv = [args.compute_sanitizer, "--tool", run.tool] + run.argv
        rc, output, run.wall = run_bounded(argv, timeout, env)
        if rc is None:
            run.results = {f: ("timeout", f"stopped after {timeout:.0f} s") for f in run.forms}
        elif run.tool == "alone":
            judge_alone(run, rc, output)
        elif run.tool == "hazardlab":
            judge_hazardlab(run, rc, output, report)
        elif run.tool == "torch-sanitizer":
            judge_torch_sanitizer(run, rc, output)
        else:
            judge_sanitizer(run, rc, output)


def runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def refuse_bad_setup(ap, args, sanitizer_given: bool, tools_given: bool) -> None:
    """What the command line names beside its options' own values, checked before anything runs: the lessons asked
    for are built (a table of "not built" cells measures nothing), a compute-sanitizer given (or a tool of it named)
    runs, and no output lands on a program it runs or among the build's lessons."""
    lessons = os.path.join(args.build_dir, "lessons")
    for name in (p for p in args.programs if p in LESSONS):
        if not runnable(os.path.join(lessons, name)):
            ap.refuse(f"--build-dir '{args.build_dir}': {os.path.join(lessons, name)} is not a runnable file (build "
                      f"the lessons there, or leave {name} out of --programs)")
    sanitizer_tools = [t for t in args.tools if t in SANITIZER_TOOLS]
    if sanitizer_given and not sanitizer_tools:
        ap.refuse(f"--compute-sanitizer '{args.compute_sanitizer}' is given, and --tools names none of its tools "
                  f"({', '.join(SANITIZER_TOOLS)})")
    if (sanitizer_given or tools_given) and sanitizer_tools and not runnable(args.compute_sanitizer):
        ap.refuse(f"--compute-sanitizer '{args.compute_sanitizer}' is not a runnable file, and --tools asks for "
                  f"{', '.join(sanitizer_tools)} (give the compute-sanitizer program, or leave them out of --tools)")
    # The sources it runs: stream_races.py, the modules it imports, and this driver's own (by inode: a hard link).
    sources = [os.path.join(folder, name) for folder in (os.path.dirname(STREAM_RACES), HERE, lessons)
               if os.path.isdir(folder) for name in os.listdir(folder)] + [args.python, CHECKED_REPORT]
    for option in ("--json", "--markdown"):
        path = getattr(args, option[2:])
        if path is None:
            continue
        real = os.path.realpath(path)
        if real.startswith(os.path.realpath(lessons) + os.sep) or (os.path.exists(path) and (
                path.endswith(".py") or any(os.path.isfile(s) and os.path.samefile(path, s) for s in sources))):
            ap.refuse(f"{option} '{path}' is a program this runs (a Python source, or one of the sources beside "
                      "stream_races.py or this driver) or lies among the build's lessons; each file written must be "
                      "a file of its own, outside the build's program folders")
    if args.python_given and not any(p in TORCH_PROGRAMS for p in args.programs):
        ap.refuse(f"--python '{args.python}' is given, and --programs names no PyTorch program "
                  f"({', '.join(TORCH_PROGRAMS)}): it would run nothing")
    if "torch-sanitizer" in args.tools and tools_given and not any(p in TORCH_PROGRAMS for p in args.programs):
        ap.refuse(f"--tools names torch-sanitizer, and --programs names none of the PyTorch programs it can run "
                  f"({', '.join(TORCH_PROGRAMS)}): its cells would all be '-'")


def programs(args) -> list[tuple[str, tuple[str, ...], list[str], str]]:
    """(program, forms, argv, why it cannot run or '') for each program asked for (the lessons are built:
    refuse_bad_setup)."""
    out = []
    for name in args.programs:
        if name in LESSONS:
            path = os.path.join(args.build_dir, "lessons", name)
            out.append((name, ("unsafe", "fixed"), [path, "--trials", "2"], ""))
        else:
            why = "" if args.torch_ok else f"{args.python} cannot import torch"
            out += [(name, (form,), [args.python, STREAM_RACES, name, form], why) for form in ("unsafe", "guarded")]
    return out


def cell(run: Run | None, form: str, alone: Run | None) -> str:
    if run is None:
        return "-"
    result, _ = run.results[form]
    if run.wall is None or result == "not run":
        return result
    ratio = f" ({run.wall / alone.wall:.1f}x)" if alone is not None and alone.wall and run.tool != "alone" else ""
    return f"{result} {run.wall:.1f} s{ratio}"


def markdown(args, table_runs, gpu: str) -> str:
    tools = ["alone"] + [t for t in TOOLS if t in args.tools]
    lines = [f"GPU: {gpu}", "", "| program | form | race | " + " | ".join(TITLES[t] for t in tools) + " |",
             "|---|---|---|" + "---|" * len(tools)]
    notes = []
    for (program, forms, _, _), runs in table_runs:
        for form in forms:
            cells = [cell(runs.get(t), form, runs.get("alone")) for t in tools]
            lines.append(f"| {program} | {form} | {'yes' if form == 'unsafe' else 'no'} | " + " | ".join(cells) + " |")
            for t in tools:
                run = runs.get(t)
                if run is not None and run.results[form][1]:
                    notes.append(f"- {program} {form}, {TITLES[t]}: {run.results[form][0]}: {run.results[form][1]}")
    lines += ["", "A lesson runs both halves in one process: its two rows share one run and its time. Race: whether "
              "the form has one.", ""] + notes
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = DriverParser(prog="side_by_side.py", description=__doc__.splitlines()[0])
    ap.add_argument("--hazardlab", required=True, type=hazardlab_program)
    ap.add_argument("--build-dir", required=True, type=existing_folder,
                    help="the build folder (BUILD/lessons/lesson-*)")
    ap.add_argument("--python", type=runnable_file,
                    help="the interpreter, with PyTorch, for the PyTorch programs")
    ap.add_argument("--compute-sanitizer")
    ap.add_argument("--tools", type=listed(TOOLS))
    ap.add_argument("--programs", type=listed(LESSONS + TORCH_PROGRAMS), default=",".join(LESSONS + TORCH_PROGRAMS))
    ap.add_argument("--timeout", type=seconds(0.001, 86400), default=300, help="seconds before one run is stopped")
    # A run starts only with a second of the budget left: a budget under a second would run nothing.
    ap.add_argument("--budget-s", type=seconds(1, 7 * 86400, zero_means="no budget"), default=0,
                    help="run nothing more after this many seconds (0: none)")
    ap.add_argument("--json", type=output_file)
    ap.add_argument("--markdown", type=output_file)
    args = ap.parse(outputs=("--json", "--markdown"), inputs=("--hazardlab", "--python", "--compute-sanitizer"))
    # Without --compute-sanitizer and --tools, the sanitizer's columns say "not available" where there is none; a
    # sanitizer given, or a tool of it named, must run.
    sanitizer_given, tools_given = args.compute_sanitizer is not None, args.tools is not None
    if sanitizer_given and not args.compute_sanitizer.strip():
        ap.refuse(f"--compute-sanitizer '{args.compute_sanitizer}' is blank: expected the compute-sanitizer program "
                  "(or leave the option out: it is then found on PATH)")
    args.python_given, args.python = args.python is not None, args.python or sys.executable
    args.compute_sanitizer = args.compute_sanitizer or shutil.which("compute-sanitizer") or \
        "/usr/local/cuda/bin/compute-sanitizer"
    args.tools = args.tools or list(TOOLS)
    refuse_bad_setup(ap, args, sanitizer_given, tools_given)
    ap.refuse_outputs_not_ours(args)
    sanitizer = runnable(args.compute_sanitizer)
    args.torch_ok = any(p in TORCH_PROGRAMS for p in args.programs) and torch_version(args.python) is not None
    gpu = "unknown (no nvidia-smi)"
    if shutil.which("nvidia-smi"):
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader", "-i", "0"],
                             capture_output=True, text=True).stdout.strip() or "unknown"

    table_runs, pending = [], []
    for program, forms, argv, why in programs(args):
        runs = {}
        for tool in ("alone",) + tuple(args.tools):
            if tool == "torch-sanitizer" and program in LESSONS:
                continue  # PyTorch's sanitizer sees PyTorch's operators only
            runs[tool] = Run(program, forms, argv, tool)
            if why:
                runs[tool].results = {f: ("not run", why) for f in forms}
            elif tool in SANITIZER_TOOLS and not sanitizer:
                runs[tool].results = {f: ("not available", f"no compute-sanitizer at {args.compute_sanitizer}")
                                      for f in forms}
            else:
                pending.append(runs[tool])
        table_runs.append(((program, forms, argv, why), runs))
    pending.sort(key=lambda r: (r.program in TORCH_PROGRAMS, ORDER.index(r.tool)))
    started = time.monotonic()
    stop_on_sigterm()
    for i, run in enumerate(pending):
        left = args.budget_s - (time.monotonic() - started) if args.budget_s else args.timeout
        if left < 1:
            run.results = {f: ("not run", "the budget (--budget-s) was spent") for f in run.forms}
            continue
        print(f"{run.program} {'/'.join(run.forms)} under {TITLES[run.tool]} ...", flush=True)
        try:
            execute(run, args, min(args.timeout, left))
        except Stopped:
            print("stopped by SIGTERM: the table holds the runs so far", flush=True)
            for rest in pending[i:]:
                rest.results, rest.wall = {f: ("not run", "stopped by SIGTERM") for f in rest.forms}, None
            break
    text = markdown(args, table_runs, gpu)
    print("\n" + text, end="")
    written = not args.markdown or write_output("--markdown", args.markdown, text)
    if args.json and not write_output("--json", args.json, json.dumps(
            [{"program": program, "form": form, "tool": tool, "result": run.results[form][0],
              "why": run.results[form][1], "wall_s": run.wall}
             for (program, forms, _, _), runs in table_runs for tool, run in runs.items() for form in forms], indent=2)):
        written = False
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main())
