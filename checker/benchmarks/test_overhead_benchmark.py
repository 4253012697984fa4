#!/usr/bin/env python3
"""The overhead benchmark's driver, with stand-ins for check-overhead and hazardlab (no GPU): it runs every
configuration in every round, reports each one's median and its ratio to the program alone from the figures
the programs printed, says when a run gave no figure (exit 1), and refuses bad input (exit 2). Nothing here
is a timing: the stand-ins print fixed figures.

Usage: test_overhead_benchmark.py SOURCE_DIR"""
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

PROGRAM = """#!/bin/sh
mode=fill; [ "$1" = "--ends" ] && { mode=ends; shift; }
echo "$mode $*" >> "$(dirname "$0")/calls"
echo "mode $mode bytes $1 iterations $2 median_us 10.00 p10_us 9.00 p90_us 11.00"
"""
# hazardlab check [--sample N | --protection P --json F] -- PROGRAM...: three times the program alone under
# mprotect, one and a half under keys, one and a quarter under range keys, twice sampled; the report names the protection asked for, or mprotect
# when FALLBACK exists (keys asked for on a machine without them); BROKEN: no figure.
HAZARDLAB = """#!/bin/sh
here="$(dirname "$0")"; shift; factor=20.00; report=; backend=
while [ "$1" != "--" ]; do
  case "$1" in
    --sample) shift 2 ;;
    --protection) backend=$2; shift 2 ;;
    --json) report=$2; shift 2 ;;
  esac
done
shift
[ -e "$here/BROKEN" ] && { echo "hazardlab check: it broke"; exit 70; }
case "$backend" in
  keys) factor=15.00; named=protection-keys ;;
  range-keys) factor=12.50; named=protection-keys ;;
  mprotect) factor=30.00; named=mprotect ;;
esac
[ -e "$here/FALLBACK" ] && named=mprotect
[ -n "$report" ] && echo "{\\"processes\\": [{\\"watching\\": true, \\"protection\\": {\\"backend\\": \\"$named\\"}}]}" > "$report"
"$@" | sed "s/median_us 10.00/median_us $factor/"
"""


def write(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def main() -> int:
    driver = Path(sys.argv[1]) / "checker" / "benchmarks" / "overhead_benchmark.py"
    failures = []
    with tempfile.TemporaryDirectory(prefix="hazardlab-overhead-") as scratch:
        folder = Path(scratch)
        program, hazardlab = write(folder / "prog", PROGRAM), write(folder / "hl", HAZARDLAB)
        base = [sys.executable, str(driver), "--hazardlab", hazardlab, "--program", program]
        run = subprocess.run(base + ["--rounds", "3", "--sizes", "4096,67108864", "--configs",
                              "plain,checked-keys,checked-range-keys,checked-mprotect,sample-100"],
                             capture_output=True, text=True)
        rows = [line.split() for line in run.stdout.splitlines() if line.startswith(("fill", "ends"))]
        if run.returncode != 0 or len(rows) != 2 * 2 * 5:
            failures.append(f"a good run: exit {run.returncode}, {len(rows)} rows:\n{run.stdout}{run.stderr}")
        ratios = {(r[0], r[1], r[2]): r[-1] for r in rows}
        for (mode, size, config), ratio in ratios.items():
            want = {"plain": "1.00", "checked-keys": "1.50", "checked-range-keys": "1.25", "checked-mprotect": "3.00",
                    "sample-100": "2.00"}[config]
            if ratio != want:
                failures.append(f"{mode} {size} {config}: ratio {ratio}, not {want}")
        calls = (folder / "calls").read_text().splitlines()
        ends = sum(c.startswith("ends ") for c in calls)
        if len(calls) != 3 * 2 * 2 * 5 or ends != len(calls) // 2:
            failures.append(f"the program ran {len(calls)} times (not 60), {ends} of them writing the ends (not half)")
        (folder / "FALLBACK").write_text("")
        run = subprocess.run(base + ["--rounds", "1", "--sizes", "4096", "--modes", "fill", "--configs",
                                     "plain,checked-keys"], capture_output=True, text=True)
        if run.returncode != 1 or "protection-keys was asked for, and the report says mprotect" not in run.stdout:
            failures.append(f"keys asked for and mprotect watching: exit {run.returncode}, not 1 saying so:\n{run.stdout}")
        (folder / "FALLBACK").unlink()
        (folder / "BROKEN").write_text("")
        run = subprocess.run(base + ["--rounds", "1", "--sizes", "4096", "--configs", "plain,checked-mprotect"],
                             capture_output=True, text=True)
        if run.returncode != 1 or "no figure from" not in run.stdout or "it broke" not in run.stdout:
            failures.append(f"a run without its figure: exit {run.returncode}, not 1 with the run's output:\n{run.stdout}")
        for bad, said in ((["--sizes", "123"], "--sizes: '123' is not one of"), (["--rounds", "0"], "--rounds 0"),
                          (["--configs", "plain,sanitizer", "--compute-sanitizer", "/nonexistent"],
                           "--compute-sanitizer '/nonexistent' is not a runnable file"),
                          (["--modes", ""], "--modes '' names nothing")):
            run = subprocess.run(base + bad, capture_output=True, text=True)
            if run.returncode != 2 or said not in run.stderr:
                failures.append(f"{bad}: exit {run.returncode}, said {run.stderr!r}, not exit 2 with {said!r}")
    for f in failures:
        print(f)
    print(f"{len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
