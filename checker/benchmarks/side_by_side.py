#!/usr/bin/env python3
"""The same stream races under compute-sanitizer (memcheck, racecheck, synccheck), PyTorch's CUDA Sanitizer and
`hazardlab check`, side by side, each run's wall time beside the program's alone:

  lesson-legacy-stream-nonblocking-consumer, lesson-cross-stream-no-event: the two plain-CUDA stream lessons,
      whose one process runs the unsafe half and then the fixed half (--trials 2). A tool's findings are told to a
      half by the functions of their stacks (`unsafe`, `fixed`); both rows share the one run and its time.
  torch-wait-stream, torch-record-stream (checker/python/stream_races.py): each form a run of its own.

Each cell: found, clean, error (the tool or the program failed; why is listed under the table), timeout, not
available (no compute-sanitizer), not run (the budget was spent, or the program is missing), or - (PyTorch's
sanitizer on a program without PyTorch); then the run's wall seconds and their ratio to the program alone.

Usage: side_by_side.py --hazardlab HAZARDLAB --build-dir BUILD [--python PYTHON] [--compute-sanitizer PATH]
           [--tools memcheck,racecheck,synccheck,torch-sanitizer,hazardlab] [--programs NAME,...]
           [--timeout SECONDS] [--budget-s SECONDS] [--json FILE] [--markdown FILE]
BUILD holds lessons/lesson-*. Runs go cheapest first: the lessons, then the PyTorch programs, each alone, then
under hazardlab check, PyTorch's sanitizer and compute-sanitizer's tools; each is stopped after --timeout, and
once --budget-s is spent the rest are not run. A comparison, not a test: it asserts nothing. Exit status 0 when
the table was made, 2 for bad input."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STREAM_RACES = os.path.normpath(os.path.join(HERE, os.pardir, "python", "stream_races.py"))
sys.path.insert(0, os.path.join(HERE, os.pardir, "programs"))
from expect_check import frames  # noqa: E402  (a stack's functions, an inlined one named by its line)
from overhead_benchmark import Stopped, run_bounded, stop_on_sigterm  # noqa: E402

LESSONS = ("lesson-legacy-stream-nonblocking-consumer", "lesson-cross-stream-no-event")
TORCH_PROGRAMS = ("torch-wait-stream", "torch-record-stream")
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck")
TOOLS = SANITIZER_TOOLS + ("torch-sanitizer", "hazardlab")
TITLES = {"alone": "alone", "memcheck": "memcheck", "racecheck": "racecheck", "synccheck": "synccheck",
          "torch-sanitizer": "PyTorch CUDA Sanitizer", "hazardlab": "hazardlab check"}
ORDER = ("alone", "hazardlab", "torch-sanitizer", "memcheck", "synccheck", "racecheck")  # cheapest first
CSAN = "CSAN detected a possible data race"
SUMMARY = re.compile(r"(?:ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: (\d+) hazard)")
ERROR_BLOCK = re.compile(r"^========= \S", re.M)  # a report's first line; its details are indented


def usage_error(text: str) -> None:
    print(f"side_by_side.py: {text}", file=sys.stderr)
    sys.exit(2)


class Run:
    """One process: a program (both halves of a lesson, or one form of a PyTorch program) under one tool."""

    def __init__(self, program: str, forms: tuple[str, ...], argv: list[str], tool: str):
        self.program, self.forms, self.argv, self.tool = program, forms, argv, tool
        self.results = {form: ("not run", "") for form in forms}  # form -> (result, why)
        self.wall = None


def halves_of(texts: list[str], forms: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Which forms the findings (each given as the text of its stacks) belong to: one form, every finding is its;
    a lesson's halves, by the function `unsafe` or `fixed` in a finding's stacks, a finding naming neither
    found in both ("half not told")."""
    if len(forms) == 1:
        return {forms[0]: ("found", f"{len(texts)} finding(s)")}
    results = {form: ("clean", "") for form in forms}
    for text in texts:
        named = [form for form in forms if re.search(rf"\b{form}\b", text)]
        for form in named or forms:
            results[form] = ("found", "" if named else "half not told")
    return results


def judge_sanitizer(run: Run, rc, output: str) -> None:
    counts = [int(a or b) for a, b in SUMMARY.findall(output)]
    if not counts:
        last = next((line for line in reversed(output.splitlines()) if line.strip()), "no output")
        run.results = {f: ("error", f"no summary from compute-sanitizer (exit {rc}): {last[-200:]}") for f in run.forms}
    elif max(counts) == 0:
        run.results = {f: ("clean", "") for f in run.forms}
    else:
        starts = [m.start() for m in ERROR_BLOCK.finditer(output)] + [len(output)]
        blocks = [output[a:b] for a, b in zip(starts, starts[1:]) if "Host Frame" in output[a:b]]
        run.results = halves_of(blocks or [output], run.forms)


def judge_torch_sanitizer(run: Run, rc, output: str) -> None:
    form = run.forms[0]
    if CSAN in output:
        run.results = {form: ("found", "")}
    elif rc == 0:
        run.results = {form: ("clean", "")}
    else:
        last = next((line for line in reversed(output.splitlines()) if line.strip()), "no output")
        run.results = {form: ("error", f"exit {rc}: {last[-200:]}")}


def judge_hazardlab(run: Run, rc, output: str, report_path: str) -> None:
    try:
        with open(report_path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        run.results = {f: ("error", f"no report (exit {rc}, {e}): {output.strip()[-200:]}") for f in run.forms}
        return
    verdict = report.get("verdict")
    if verdict == "found":
        texts = []
        for p in report.get("processes", []):
            for f in p.get("findings", []):
                python = " | ".join(fr.get("function", "") for fr in f.get("copy_python", []) + f.get("access_python", []))
                texts.append(f"{f['finding'].get('hazard')}: {frames(f.get('copy_stack', []))} || "
                             f"{frames(f.get('access_stack', []))} || {python}")
        run.results = halves_of(texts, run.forms)
        hazards = sorted({t.split(":")[0] for t in texts})
        run.results = {form: (r, ", ".join(hazards) if r == "found" else why) for form, (r, why) in run.results.items()}
    elif verdict in ("clean", "sampled"):
        run.results = {f: ("clean", "") for f in run.forms}
    else:
        reasons = [p.get("not_watching_because", "") for p in report.get("processes", [])]
        run.results = {f: ("error", f"verdict {verdict}: {'; '.join(r for r in reasons if r)}") for f in run.forms}


def judge_alone(run: Run, rc, output: str) -> None:
    lesson = run.program.startswith("lesson-")
    if rc == 0 or (lesson and rc == 1):  # a lesson exits 1 when its unsafe half did not go wrong every time
        # What the program said of the form: a lesson's line for its half, a PyTorch program's line of its result.
        said = {f: " ".join(line.split()) for f in run.forms for line in output.splitlines()
                if line.startswith(f"{f}:" if lesson else f"{run.program} {f}:")}
        run.results = {f: ("ran", said.get(f, "")) for f in run.forms}
    else:
        run.results = {f: ("error", f"exit {rc}: {output.strip()[-200:]}") for f in run.forms}


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


def programs(args) -> list[tuple[str, tuple[str, ...], list[str], str]]:
    """(program, forms, argv, why it cannot run or '') for each program asked for."""
    out = []
    for name in args.programs:
        if name in LESSONS:
            path = os.path.join(args.build_dir, "lessons", name)
            ok = os.path.isfile(path) and os.access(path, os.X_OK)
            out.append((name, ("unsafe", "fixed"), [path, "--trials", "2"], "" if ok else f"{path} is not built"))
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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hazardlab", required=True)
    ap.add_argument("--build-dir", required=True, help="the build folder (BUILD/lessons/lesson-*)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter, with PyTorch, for the PyTorch programs")
    ap.add_argument("--compute-sanitizer", default=shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--programs", default=",".join(LESSONS + TORCH_PROGRAMS))
    ap.add_argument("--timeout", type=float, default=300, help="seconds before one run is stopped")
    ap.add_argument("--budget-s", type=float, default=0, help="run nothing more after this many seconds (0: none)")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    args.programs = [p.strip() for p in args.programs.split(",") if p.strip()]
    for t in args.tools:
        if t not in TOOLS:
            usage_error(f"--tools: '{t}' is not one of {', '.join(TOOLS)}")
    for p in args.programs:
        if p not in LESSONS + TORCH_PROGRAMS:
            usage_error(f"--programs: '{p}' is not one of {', '.join(LESSONS + TORCH_PROGRAMS)}")
    if not args.tools or not args.programs:
        usage_error("--tools and --programs must name something")
    if not (os.path.isfile(args.hazardlab) and os.access(args.hazardlab, os.X_OK)):
        usage_error(f"--hazardlab '{args.hazardlab}' is not a runnable file")
    if not os.path.isdir(args.build_dir):
        usage_error(f"--build-dir '{args.build_dir}' is not a folder")
    if not args.timeout > 0 or args.budget_s < 0:
        usage_error("--timeout must be above 0 and --budget-s not below 0")
    sanitizer = os.path.isfile(args.compute_sanitizer) and os.access(args.compute_sanitizer, os.X_OK)
    args.torch_ok = any(p in TORCH_PROGRAMS for p in args.programs) and subprocess.run(
        [args.python, "-c", "import torch"], capture_output=True).returncode == 0
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
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"program": program, "form": form, "tool": tool, "result": run.results[form][0],
                        "why": run.results[form][1], "wall_s": run.wall}
                       for (program, forms, _, _), runs in table_runs for tool, run in runs.items() for form in forms],
                      f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
