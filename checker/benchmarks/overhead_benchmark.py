#!/usr/bin/env python3
"""What `hazardlab check` costs on the loop it slows most (check-overhead: the host writes a pinned buffer,
copies it to the device asynchronously, synchronizes), beside the program alone, sampled checking and
compute-sanitizer; checked under each page protection (protection keys, with range keys, mprotect). Every configuration runs once per round at each size and mode, in a different order each
round, so that drift in the machine lands on all of them; the table gives each configuration's median of the
rounds' medians per iteration, the spread of the rounds (lowest to highest), and the ratio to the program
alone in the same rounds. A benchmark: it prints what it measured and asserts nothing about time.

Usage: overhead_benchmark.py --hazardlab HAZARDLAB --program CHECK_OVERHEAD [--rounds 5]
           [--sizes 4096,65536,1048576,67108864] [--modes fill,ends]
           [--configs plain,checked-keys,checked-range-keys,checked-mprotect,sample-100,sanitizer]
           [--compute-sanitizer PATH] [--json FILE]
A checked run whose report says another protection watched it (keys asked for on a machine without them) gives
no figure. Exit status: 0 when every run gave its figure; 1 when one did not (the run's output is printed); 2
for bad input."""
import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

# The protection a checked run asks for, as the programs' driver (checker/programs/expect_check.py) spells it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "programs"))
from expect_check import BACKEND_ASKED  # noqa: E402

# Iterations per run by size, for runs of a few tenths of a second: with 4000 at 4 KiB (30 ms a run on an H100
# host), the medians of checked runs spread from 7.4 to 17.6 us an iteration; with 50000, from 8.7 to 9.5 us.
ITERATIONS = {4096: 50000, 65536: 25000, 1048576: 5000, 67108864: 200}
CONFIGS = ("plain", "checked-keys", "checked-range-keys", "checked-mprotect", "sample-100", "sanitizer")
# What each checked configuration asks for (--protection), and the backend its report must name.
ASKS = {"checked-keys": "keys", "checked-range-keys": "range-keys", "checked-mprotect": "mprotect"}
PROTECTION = {config: (asked, BACKEND_ASKED[asked]) for config, asked in ASKS.items()}
MODES = ("fill", "ends")
LINE = re.compile(r"^mode (\w+) bytes (\d+) iterations (\d+) median_us ([0-9.]+) p10_us ([0-9.]+) p90_us ([0-9.]+)$",
                  re.M)


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


def command(config: str, args, mode: str, size: int, report: str) -> list[str]:
    program = [args.program] + (["--ends"] if mode == "ends" else []) + [str(size), str(ITERATIONS[size])]
    if config == "plain":
        return program
    if config in PROTECTION:
        return [args.hazardlab, "check", "--protection", PROTECTION[config][0], "--json", report, "--"] + program
    if config == "sample-100":
        return [args.hazardlab, "check", "--sample", "100", "--"] + program
    return [args.compute_sanitizer, "--tool", "memcheck", "--error-exitcode", "1"] + program


def one_run(config: str, args, mode: str, size: int) -> float | None:
    with tempfile.TemporaryDirectory(prefix="hazardlab-overhead-") as scratch:
        report = os.path.join(scratch, "check.json")
        argv = command(config, args, mode, size, report)
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        m = LINE.search(p.stdout)
        if p.returncode != 0 or not m:
            print(f"no figure from {' '.join(argv)} (exit status {p.returncode}):\n{p.stdout[-2000:]}")
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
    return float(m.group(4))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hazardlab", required=True)
    ap.add_argument("--program", required=True, help="the check-overhead program")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sizes", default=",".join(map(str, ITERATIONS)))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--compute-sanitizer", default=shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer")
    ap.add_argument("--json", help="write every round's figures here")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not 1 <= args.rounds <= 100:
        usage_error(f"--rounds {args.rounds}: allowed 1 to 100")
    sizes = listed(args.sizes, tuple(ITERATIONS), "sizes", int)
    modes = listed(args.modes, MODES, "modes")
    configs = listed(args.configs, CONFIGS, "configs")
    for what, path in (("--hazardlab", args.hazardlab), ("--program", args.program)):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            usage_error(f"{what} '{path}' is not a runnable file")
    if "sanitizer" in configs and not (os.path.isfile(args.compute_sanitizer) and os.access(args.compute_sanitizer, os.X_OK)):
        usage_error(f"--compute-sanitizer '{args.compute_sanitizer}' is not a runnable file (or leave sanitizer out "
                    "of --configs)")

    order = random.Random(args.seed)
    figures: dict[tuple[str, int, str], list[float]] = {}
    failed = False
    for round_number in range(1, args.rounds + 1):
        runs = [(mode, size, config) for mode in modes for size in sizes for config in configs]
        order.shuffle(runs)
        for mode, size, config in runs:
            us = one_run(config, args, mode, size)
            if us is None:
                failed = True
                continue
            figures.setdefault((mode, size, config), []).append(us)
        print(f"round {round_number} of {args.rounds} done", flush=True)

    print(f"\n{'mode':5} {'bytes':>9} {'config':16} {'median us':>10} {'rounds (lowest-highest)':>24} {'x plain':>8}")
    for mode in modes:
        for size in sizes:
            plain = figures.get((mode, size, "plain"))
            for config in configs:
                runs = figures.get((mode, size, config))
                if not runs:
                    print(f"{mode:5} {size:>9} {config:16} {'no figure':>10}")
                    continue
                median = statistics.median(runs)
                ratio = f"{median / statistics.median(plain):.2f}" if plain else "-"
                spread = f"{min(runs):.2f}-{max(runs):.2f} ({len(runs)})"
                print(f"{mode:5} {size:>9} {config:16} {median:>10.2f} {spread:>24} {ratio:>8}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump([{"mode": m, "bytes": b, "config": c, "median_us_per_round": v}
                       for (m, b, c), v in sorted(figures.items())], out, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
