"""One run of the overhead benchmark: the command of a (workload, variant, configuration), and the figure its
output gives (or why it gives none)."""
import json
import os
import re
import statistics
import sys
import tempfile

from bounded_runs import run_bounded

# The protection a checked run asks for, as the programs' driver (checker/programs/checked_report.py) spells it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "programs"))
from checked_report import BACKEND_ASKED  # noqa: E402

# Iterations per run by size, for runs of a few tenths of a second: with 4000 at 4 KiB (30 ms a run on an H100
# host), the medians of checked runs spread from 7.4 to 17.6 us an iteration; with 50000, from 8.7 to 9.5 us.
ITERATIONS = {4096: 50000, 65536: 25000, 1048576: 5000, 67108864: 200}
# What each checked configuration asks for (--protection), and the backend its report must name.
ASKS = {"checked-keys": "keys", "checked-range-keys": "range-keys", "checked-mprotect": "mprotect"}
PROTECTION = {config: (asked, BACKEND_ASKED[asked]) for config, asked in ASKS.items()}
LINE = re.compile(r"^mode (\w+) bytes (\d+) iterations (\d+) median_us ([0-9.]+) p10_us ([0-9.]+) p90_us ([0-9.]+)$",
                  re.M)
LAUNCH_LINE = re.compile(r"^mode launch steps (\d+) launches (\d+) elements (\d+) median_us ([0-9.]+) "
                         r"p10_us ([0-9.]+) p90_us ([0-9.]+)$", re.M)
EPOCH_LINE = re.compile(r"^epoch (\d+) seconds ([0-9.]+) loss", re.M)


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
