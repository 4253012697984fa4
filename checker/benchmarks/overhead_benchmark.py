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
one did not (the run's output is printed); 2 for bad input (checker/drivers/driver_options.py: each list names an item
once, numbers are finite and within range, --json a file in a folder that exists and none of the programs it runs;
an option of a workload or of the sanitizer configuration that does not run is refused), before anything runs."""
import json
import os
import random
import shutil
import statistics
import signal
import subprocess
import sys
import time

from bounded_runs import Stopped, stop_on_sigterm, torch_version
from overhead_runs import ITERATIONS, one_run

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "drivers"))
from driver_options import (DriverParser, hazardlab_program, listed, output_file, runnable_file,  # noqa: E402
                            seconds, whole_number, write_output)

WORKLOADS = ("copy", "launch", "train")
UNITS = {"copy": "us/iteration", "launch": "us/launch", "train": "s/epoch"}
CONFIGS = ("plain", "checked", "checked-keys", "checked-range-keys", "checked-mprotect", "sample-100", "sanitizer")
DEFAULT_CONFIGS = {"copy": tuple(c for c in CONFIGS if c != "checked"), "launch": ("plain", "checked"),
                   "train": ("plain", "checked")}
MODES = ("fill", "ends")


def runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def parse_args(argv=None):
    ap = DriverParser(prog="overhead_benchmark.py", description=__doc__.splitlines()[0])
    ap.add_argument("--hazardlab", required=True, type=hazardlab_program)
    ap.add_argument("--program", type=runnable_file, help="the check-overhead program (the copy workload)")
    ap.add_argument("--launch-program", type=runnable_file,
                    help="the check-launch-overhead program (the launch workload)")
    ap.add_argument("--training-loop", help="checker/python/training_loop.py (the train workload)")
    ap.add_argument("--python", help="the interpreter, with PyTorch, for the train workload")
    ap.add_argument("--workloads", type=listed(WORKLOADS))
    ap.add_argument("--rounds", type=whole_number(1, 100), default=5)
    ap.add_argument("--budget-s", type=seconds(0.001, 7 * 86400, zero_means="no budget"), default=0,
                    help="start no round that would end after this (0: none)")
    ap.add_argument("--run-timeout", type=seconds(0.001, 86400), default=600,
                    help="seconds before one run is stopped")
    # The options of one workload have no default here: one given for a workload that does not run is refused
    # (plan), and the defaults (WORKLOAD_DEFAULTS) are set after that.
    ap.add_argument("--sizes", type=listed(tuple(ITERATIONS), int))
    ap.add_argument("--modes", type=listed(MODES))
    ap.add_argument("--launch-steps", type=whole_number(250, 1000000))
    ap.add_argument("--train-workers", type=listed(tuple(range(0, 65)), int))
    ap.add_argument("--epochs", type=whole_number(1, 100))
    ap.add_argument("--batches", type=whole_number(1, 100000))
    ap.add_argument("--configs", type=listed(CONFIGS))
    ap.add_argument("--compute-sanitizer", help="compute-sanitizer (the sanitizer configuration)")
    ap.add_argument("--json", type=output_file, help="write every round's figures here")
    ap.add_argument("--seed", type=whole_number(0, 2**63 - 1), default=1)
    # The interpreter and the sanitizer are inputs too: --json must never write over the programs it runs.
    return ap, ap.parse(argv, outputs=("--json",), inputs=("--hazardlab", "--program", "--launch-program",
                                                           "--training-loop", "--python", "--compute-sanitizer"))


# The options only one workload uses (or the sanitizer configuration), and their defaults.
WORKLOAD_DEFAULTS = {"--sizes": ("copy", list(ITERATIONS)), "--modes": ("copy", list(MODES)),
                     "--launch-steps": ("launch", 10000), "--train-workers": ("train", [2, 0]),
                     "--epochs": ("train", 4), "--batches": ("train", 100), "--python": ("train", sys.executable),
                     "--compute-sanitizer": ("sanitizer", shutil.which("compute-sanitizer")
                                             or "/usr/local/cuda/bin/compute-sanitizer")}


def unused_options(ap, args, workloads, configs) -> None:
    """Refuses an option no run uses (--epochs with the launch workload alone would be ignored without a word),
    then gives the unset ones their defaults."""
    for option, (user, default) in WORKLOAD_DEFAULTS.items():
        attribute = option.lstrip("-").replace("-", "_")
        given = getattr(args, attribute)
        if given is None:
            setattr(args, attribute, default)
        elif user not in workloads and user not in configs:
            what = "the sanitizer configuration" if user == "sanitizer" else f"the {user} workload"
            shown = ",".join(map(str, given)) if isinstance(given, list) else given
            ap.refuse(f"{option} '{shown}' is for {what}, which is not run here (the workloads: "
                      f"{', '.join(workloads)}; the configurations: {', '.join(sorted(configs))})")


def plan(ap, args) -> list[tuple[str, str, str]]:
    """Every (workload, variant, configuration) a round runs; exits 2 on bad input, before anything runs."""
    given = {"copy": args.program, "launch": args.launch_program, "train": args.training_loop}
    workloads = args.workloads or [w for w in WORKLOADS if given[w]]
    if not workloads:
        ap.refuse("no workload: give --program, --launch-program or --training-loop")
    unused_options(ap, args, workloads, {c for w in workloads for c in (args.configs or DEFAULT_CONFIGS[w])})
    for w in workloads:
        what = {"copy": "--program", "launch": "--launch-program", "train": "--training-loop"}[w]
        path = given[w]
        if not path or not (os.path.isfile(path) if w == "train" else runnable(path)):
            ap.refuse(f"the {w} workload: {what} '{path or ''}' is not a {'file' if w == 'train' else 'runnable file'}")
    for w, path in given.items():  # a workload's program given, and the workload left out: it would not run
        if path is not None and w not in workloads:
            what = {"copy": "--program", "launch": "--launch-program", "train": "--training-loop"}[w]
            ap.refuse(f"{what} '{path}' is for the {w} workload, which --workloads '{','.join(workloads)}' leaves "
                      f"out; add {w} to --workloads, or leave {what} out")
    if "train" in workloads and not runnable(args.python):
        ap.refuse(f"--python '{args.python}' is not a runnable file (the train workload's interpreter)")
    if "train" in workloads and torch_version(args.python) is None:
        ap.refuse(f"--python '{args.python}' cannot import torch (`{args.python} -c 'import torch'` did not say its "
                  "version): expected an interpreter with PyTorch for the train workload")
    ap.refuse_outputs_not_ours(args)
    runs = []
    for w in workloads:
        configs = args.configs or list(DEFAULT_CONFIGS[w])
        if w == "copy":
            variants = [f"{m}/{s}" for m in args.modes for s in args.sizes]
        elif w == "launch":
            variants = [f"{2 * args.launch_steps}-launches"]
        else:
            variants = [f"workers-{n}" for n in args.train_workers]
        runs += [(w, v, c) for v in variants for c in configs]
    if any(c == "sanitizer" for _, _, c in runs) and not runnable(args.compute_sanitizer):
        ap.refuse(f"--compute-sanitizer '{args.compute_sanitizer}' is not a runnable file (or leave sanitizer out "
                  "of --configs)")
    if any(c == "sanitizer" for _, _, c in runs) and not is_compute_sanitizer(args.compute_sanitizer):
        ap.refuse(f"--compute-sanitizer '{args.compute_sanitizer}' is not compute-sanitizer (its --version does not "
                  "say Compute Sanitizer): expected NVIDIA's compute-sanitizer, or leave sanitizer out of --configs")
    return runs


def is_compute_sanitizer(path) -> bool:
    """Another program (/bin/true) would run each sanitizer run's program, or none, and leave no figure: found
    only after the rounds. compute-sanitizer names itself when asked its version."""
    try:
        said = subprocess.run([path, "--version"], capture_output=True, text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return said.returncode == 0 and "Compute Sanitizer" in said.stdout + said.stderr


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
    ap, args = parse_args()
    runs = plan(ap, args)
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
    # The rounds are over: a SIGTERM now would only cut the table and the figures short.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    table(runs, figures, walls)
    if args.json and not write_output("--json", args.json, json.dumps(
            [{"workload": w, "variant": v, "config": c, "unit": UNITS[w], "figure_per_round": figures.get((w, v, c), []),
              "wall_s_per_round": walls.get((w, v, c), [])} for w, v, c in runs], indent=2)):
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
