#!/usr/bin/env python3
"""What `hazardlab check` costs, beside the program alone, on three workloads:

  copy    check-overhead, the loop it slows most: the host writes a pinned buffer, copies it to the device
          asynchronously, synchronizes (per size and mode: `fill` rewrites the buffer, `ends` one byte at each end);
          figure: the median microseconds per iteration;
  launch  check-launch-overhead, a launch-heavy loop in the shape of a training step: short kernels on two streams
          ordered with events (20,000 launches by default); figure: the median microseconds per launch;
  train   training_loop.py's PyTorch loop (DataLoader with pinned memory, non-blocking uploads, an optimizer step),
          with and without DataLoader workers; figure: the median seconds per epoch after the first.

Configurations: the program alone (`plain`), under `hazardlab check` with its default protection (`checked`) or
with each page protection (`checked-keys`, `checked-range-keys`, `checked-mprotect`), under `--sample 100`, and
under compute-sanitizer's memcheck (`sanitizer`). Every run of a round (each workload, variant and
configuration) runs once, in a different order each round, so that drift in the machine lands on all of them; the
table gives each one's median of the rounds' figures, the spread of the rounds (lowest to highest), its ratio to
the program alone in the same rounds, and the same ratio of the runs' whole wall times (start-up included). Run it
on one GPU: every figure then comes from the same GPU. A benchmark: it prints what it measured and asserts nothing
about time.

Usage: overhead_benchmark.py --hazardlab HAZARDLAB [--program CHECK_OVERHEAD] [--launch-program CHECK_LAUNCH_OVERHEAD]
           [--training-loop TRAINING_LOOP_PY [--python PYTHON]] [--workloads copy,launch,train] [--rounds 5]
           [--budget-s SECONDS] [--run-timeout SECONDS]
           [--sizes 4096,65536,1048576,67108864] [--modes fill,ends] [--launch-steps 10000]
           [--train-workers 2,0] [--epochs 4] [--batches 100]
           [--configs plain,checked,...] [--compute-sanitizer PATH] [--json FILE]
The workloads are those whose program was given (or --workloads). Default configurations: copy, every one but
`checked` (the default protection, which the three `checked-` ones name); launch and train, `plain,checked`;
--configs sets them for all. --budget-s starts no round that would end after that many seconds (a round's time
taken as the last one's; the first always runs). A checked run whose report says another protection watched it
(keys asked for on a machine without them) gives no figure. Exit status: 0 when every run gave its figure; 1 when
one did not (the run's output is printed); 2 for bad input."""
import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# The protection a checked run asks for, as the programs' driver (checker/programs/expect_check.py) spells it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "programs"))
from expect_check import BACKEND_ASKED  # noqa: E402

# Iterations per run by size, for runs of a few tenths of a second: with 4000 at 4 KiB (30 ms a run on an H100
# host), the medians of checked runs spread from 7.4 to 17.6 us an iteration; with 50000, from 8.7 to 9.5 us.
ITERATIONS = {4096: 50000, 65536: 25000, 1048576: 5000, 67108864: 200}
WORKLOADS = ("copy", "launch", "train")
UNITS = {"copy": "us/iteration", "launch": "us/launch", "train": "s/epoch"}
CONFIGS = ("plain", "checked", "checked-keys", "checked-range-keys", "checked-mprotect", "sample-100", "sanitizer")
DEFAULT_CONFIGS = {"copy": tuple(c for c in CONFIGS if c != "checked"), "launch": ("plain", "checked"),
                   "train": ("plain", "checked")}
# What each checked configuration asks for (--protection), and the backend its report must name.
ASKS = {"checked-keys": "keys", "checked-range-keys": "range-keys", "checked-mprotect": "mprotect"}
PROTECTION = {config: (asked, BACKEND_ASKED[asked]) for config, asked in ASKS.items()}
MODES = ("fill", "ends")
LINE = re.compile(r"^mode (\w+) bytes (\d+) iterations (\d+) median_us ([0-9.]+) p10_us ([0-9.]+) p90_us ([0-9.]+)$",
                  re.M)
LAUNCH_LINE = re.compile(r"^mode launch steps (\d+) launches (\d+) elements (\d+) median_us ([0-9.]+) "
                         r"p10_us ([0-9.]+) p90_us ([0-9.]+)$", re.M)
EPOCH_LINE = re.compile(r"^epoch (\d+) seconds ([0-9.]+) loss", re.M)


def usage_error(text: str) -> None:
    print(f"overhead_benchmark.py: {text}", file=sys.stderr)
    sys.exit(2)


def listed(value: str, allowed, what: str, convert=str):
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        usage_error(f"--{what} '{value}' names nothing; allowed: {', '.join(map(str, allowed))}")
    out = []
    for item in items:
        try:
            converted = convert(item)
        except ValueError:
            usage_error(f"--{what}: '{item}' is not one of {', '.join(map(str, allowed))}")
        if converted not in allowed:
            usage_error(f"--{what}: '{item}' is not one of {', '.join(map(str, allowed))}")
        out.append(converted)
    return out


class Stopped(Exception):
    """SIGTERM arrived (an outer time limit): the runs so far are reported."""


def stop_on_sigterm() -> None:
    def handler(signum, frame):
        raise Stopped()
    signal.signal(signal.SIGTERM, handler)


def stop_group(p: subprocess.Popen) -> str:
    """Stops p's process group (SIGTERM, then SIGKILL) and returns what it had written."""
    out = ""
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 30)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            break
        try:
            out, _ = p.communicate(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    return out or ""


def run_bounded(argv, timeout, env=None):
    """Runs argv in a process group of its own, its output and error together; after `timeout` seconds, or when
    this script is stopped, the whole group (a checker's or a sanitizer's program with it) is stopped. Returns
    (exit status or None when it timed out, output, wall seconds)."""
    start = time.monotonic()
    try:
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                             env=env, start_new_session=True)
    except OSError as e:
        return 127, f"{argv[0]} could not be started: {e}", 0.0
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out, time.monotonic() - start
    except subprocess.TimeoutExpired:
        return None, stop_group(p), time.monotonic() - start
    except BaseException:
        stop_group(p)
        raise


def program(workload: str, variant: str, args) -> list[str]:
    if workload == "copy":
        mode, size = variant.split("/")
        return [args.program] + (["--ends"] if mode == "ends" else []) + [size, str(ITERATIONS[int(size)])]
    if workload == "launch":
        return [args.launch_program, str(args.launch_steps)]
    workers = variant.split("-")[1]
    return [args.python, args.training_loop, "train", "--epochs", str(args.epochs), "--workers", workers,
            "--batches", str(args.batches)]


def command(config: str, argv: list[str], args, report: str) -> list[str]:
    if config == "plain":
        return argv
    if config == "checked":
        return [args.hazardlab, "check", "--json", report, "--"] + argv
    if config in PROTECTION:
        return [args.hazardlab, "check", "--protection", PROTECTION[config][0], "--json", report, "--"] + argv
    if config == "sample-100":
        return [args.hazardlab, "check", "--sample", "100", "--"] + argv
    return [args.compute_sanitizer, "--tool", "memcheck", "--error-exitcode", "1"] + argv


def figure(workload: str, output: str) -> float | None:
    if workload == "train":
        epochs = [float(m.group(2)) for m in EPOCH_LINE.finditer(output)]
        return statistics.median(epochs[1:] or epochs) if epochs else None
    m = (LINE if workload == "copy" else LAUNCH_LINE).search(output)
    return float(m.group(4)) if m else None


def one_run(workload: str, variant: str, config: str, args) -> tuple[float, float] | None:
    with tempfile.TemporaryDirectory(prefix="hazardlab-overhead-") as scratch:
        report = os.path.join(scratch, "check.json")
        argv = command(config, program(workload, variant, args), args, report)
        rc, output, wall = run_bounded(argv, args.run_timeout)
        value = figure(workload, output) if rc == 0 else None
        if value is None:
            why = f"stopped after {args.run_timeout} s" if rc is None else f"exit status {rc}"
            print(f"no figure from {' '.join(argv)} ({why}):\n{output[-2000:]}")
            return None
        if config in PROTECTION:
            try:
                with open(report) as f:
                    processes = json.load(f)["processes"]
            except (OSError, ValueError, KeyError) as e:
                print(f"no figure from {' '.join(argv)}: its report could not be read ({e})")
                return None
            got = {(p.get("protection") or {}).get("backend") for p in processes if p.get("watching")}
            if got != {PROTECTION[config][1]}:
                print(f"no figure from {' '.join(argv)}: {PROTECTION[config][1]} was asked for, and the report says "
                      f"{', '.join(sorted(map(str, got))) or 'nothing'} watched it")
                return None
    return value, wall


def runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hazardlab", required=True)
    ap.add_argument("--program", help="the check-overhead program (the copy workload)")
    ap.add_argument("--launch-program", help="the check-launch-overhead program (the launch workload)")
    ap.add_argument("--training-loop", help="checker/python/training_loop.py (the train workload)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter, with PyTorch, for the train workload")
    ap.add_argument("--workloads")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--budget-s", type=float, default=0, help="start no round that would end after this (0: none)")
    ap.add_argument("--run-timeout", type=float, default=600, help="seconds before one run is stopped")
    ap.add_argument("--sizes", default=",".join(map(str, ITERATIONS)))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--launch-steps", type=int, default=10000)
    ap.add_argument("--train-workers", default="2,0")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batches", type=int, default=100)
    ap.add_argument("--configs")
    ap.add_argument("--compute-sanitizer", default=shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer")
    ap.add_argument("--json", help="write every round's figures here")
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args()


def plan(args) -> list[tuple[str, str, str]]:
    """Every (workload, variant, configuration) a round runs; exits 2 on bad input."""
    if not 1 <= args.rounds <= 100:
        usage_error(f"--rounds {args.rounds}: allowed 1 to 100")
    if not (args.run_timeout > 0 and args.budget_s >= 0):
        usage_error("--run-timeout must be above 0 and --budget-s not below 0")
    given = {"copy": args.program, "launch": args.launch_program, "train": args.training_loop}
    workloads = (listed(args.workloads, WORKLOADS, "workloads") if args.workloads
                 else [w for w in WORKLOADS if given[w]])
    if not workloads:
        usage_error("no workload: give --program, --launch-program or --training-loop")
    if not runnable(args.hazardlab):
        usage_error(f"--hazardlab '{args.hazardlab}' is not a runnable file")
    for w in workloads:
        what = {"copy": "--program", "launch": "--launch-program", "train": "--training-loop"}[w]
        path = given[w]
        if not path or not (os.path.isfile(path) if w == "train" else runnable(path)):
            usage_error(f"the {w} workload: {what} '{path or ''}' is not a {'file' if w == 'train' else 'runnable file'}")
    if "launch" in workloads and not 250 <= args.launch_steps <= 1000000:
        usage_error(f"--launch-steps {args.launch_steps}: allowed 250 to 1000000")
    if "train" in workloads and not (1 <= args.epochs <= 100 and 1 <= args.batches <= 100000):
        usage_error("--epochs: allowed 1 to 100; --batches: 1 to 100000")
    runs = []
    for w in workloads:
        configs = listed(args.configs, CONFIGS, "configs") if args.configs else list(DEFAULT_CONFIGS[w])
        if w == "copy":
            variants = [f"{m}/{s}" for m in listed(args.modes, MODES, "modes")
                        for s in listed(args.sizes, tuple(ITERATIONS), "sizes", int)]
        elif w == "launch":
            variants = [f"{2 * args.launch_steps}-launches"]
        else:
            variants = [f"workers-{n}" for n in listed(args.train_workers, tuple(range(0, 65)), "train-workers", int)]
        runs += [(w, v, c) for v in variants for c in configs]
    if any(c == "sanitizer" for _, _, c in runs) and not runnable(args.compute_sanitizer):
        usage_error(f"--compute-sanitizer '{args.compute_sanitizer}' is not a runnable file (or leave sanitizer out "
                    "of --configs)")
    return runs


def table(runs, figures, walls) -> None:
    print(f"\n{'workload':8} {'variant':16} {'config':18} {'median':>10} {'unit':12} {'rounds (lowest-highest)':>26} "
          f"{'x plain':>8} {'wall x plain':>12}")
    for w, v, c in runs:
        got = figures.get((w, v, c))
        if not got:
            print(f"{w:8} {v:16} {c:18} {'no figure':>10}")
            continue
        plain, plain_wall = figures.get((w, v, "plain")), walls.get((w, v, "plain"))
        median = statistics.median(got)
        ratio = f"{median / statistics.median(plain):.2f}" if plain else "-"
        wall = f"{statistics.median(walls[(w, v, c)]) / statistics.median(plain_wall):.2f}" if plain_wall else "-"
        spread = f"{min(got):.3f}-{max(got):.3f} ({len(got)})"
        print(f"{w:8} {v:16} {c:18} {median:>10.3f} {UNITS[w]:12} {spread:>26} {ratio:>8} {wall:>12}")


def main() -> int:
    args = parse_args()
    runs = plan(args)
    if shutil.which("nvidia-smi"):
        gpus = subprocess.run(["nvidia-smi", "--query-gpu=index,name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip()
        print(f"GPUs of this machine (every run uses the first one CUDA_VISIBLE_DEVICES leaves):\n{gpus}", flush=True)
    order = random.Random(args.seed)
    figures: dict[tuple[str, str, str], list[float]] = {}
    walls: dict[tuple[str, str, str], list[float]] = {}
    failed = False
    started, last_round = time.monotonic(), 0.0
    stop_on_sigterm()
    try:
        for round_number in range(1, args.rounds + 1):
            if args.budget_s and round_number > 1 and time.monotonic() - started + last_round > args.budget_s:
                print(f"stopped after {round_number - 1} of {args.rounds} rounds: another would pass --budget-s "
                      f"{args.budget_s:g}", flush=True)
                break
            round_start = time.monotonic()
            this_round = list(runs)
            order.shuffle(this_round)
            for w, v, c in this_round:
                got = one_run(w, v, c, args)
                if got is None:
                    failed = True
                    continue
                figures.setdefault((w, v, c), []).append(got[0])
                walls.setdefault((w, v, c), []).append(got[1])
            last_round = time.monotonic() - round_start
            print(f"round {round_number} of {args.rounds} done ({last_round:.1f} s)", flush=True)
    except Stopped:
        print("stopped by SIGTERM: the table holds the rounds' runs so far", flush=True)
        failed = True
    table(runs, figures, walls)
    if args.json:
        with open(args.json, "w") as out:
            json.dump([{"workload": w, "variant": v, "config": c, "unit": UNITS[w],
                        "figure_per_round": figures.get((w, v, c), []), "wall_s_per_round": walls.get((w, v, c), [])}
                       for w, v, c in runs], out, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
