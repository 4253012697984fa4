#!/usr/bin/env python3
"""The overhead benchmark's driver, with stand-ins for check-overhead, check-launch-overhead, the training loop
and hazardlab (no GPU): it runs every workload and configuration in every round, reports each one's median and
its ratio to the program alone from the figures the programs printed, says when a run gave no figure or was
stopped (exit 1), starts no round past its budget, and refuses bad input (exit 2). Nothing here is a timing:
the stand-ins print fixed figures.

Usage: test_overhead_benchmark.py SOURCE_DIR"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

from refusals import refusals

PROGRAM = """#!/bin/sh
mode=fill; [ "$1" = "--ends" ] && { mode=ends; shift; }
echo "$mode $*" >> "$(dirname "$0")/calls"
echo "mode $mode bytes $1 iterations $2 median_us 10.00 p10_us 9.00 p90_us 11.00"
"""
LAUNCH = """#!/bin/sh
echo "launch $*" >> "$(dirname "$0")/calls"
[ -e "$(dirname "$0")/HANG" ] && exec sleep 20
echo "gpu Stand-in GPU"
echo "mode launch steps $1 launches $(($1 * 2)) elements 4096 median_us 10.00 p10_us 9.00 p90_us 11.00"
"""
# The training loop's stand-in, run by a stand-in interpreter (its first argument is the script): the first epoch
# slow (start-up), the others 1.0000 seconds.
PYTHON = """#!/bin/sh
[ "$1" = "-c" ] && { echo "torch 2.5.0"; exit 0; }  # the driver's probe: an interpreter with PyTorch
shift
echo "train $*" >> "$(dirname "$0")/calls"
echo "epoch 0 seconds 9.0000 loss 2.0"
echo "epoch 1 seconds 1.0000 loss 1.0"
echo "epoch 2 seconds 1.0000 loss 0.5"
"""
# hazardlab check [--sample N | --protection P --json F] -- PROGRAM...: three times the program alone under
# mprotect, one and a half under keys, one and a quarter under range keys, twice sampled or with the default
# protection (an epoch: 1.2 times); the report names the protection asked for, or mprotect when FALLBACK exists
# (keys asked for on a machine without them); BROKEN: no figure.
HAZARDLAB = """#!/bin/sh
[ "$1 $2" = "check --help" ] && { echo "hazardlab check: a stand-in"; exit 0; }
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
"$@" | sed -e "s/median_us 10.00/median_us $factor/" -e "s/seconds 1.0000/seconds 1.2000/"
"""


def write(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def python_site_probes(source: Path) -> list[str]:
    """python_site_benchmark.py with probe libraries that are not the probe: one whose function gives no time (0),
    one whose ns_per_python_capture is data (calling it would crash the interpreter). Built where there is a C
    compiler; skipped elsewhere."""
    compiler = shutil.which("cc")
    if not compiler:
        print("python_site_benchmark's probes: skipped (no C compiler)")
        return []
    failures = []
    with tempfile.TemporaryDirectory(prefix="hazardlab-site-probe-") as scratch:
        for name, text, said in (("zero", "double ns_per_python_capture(int m, int n) { return 0; }", "not a time"),
                                 ("data", "double ns_per_python_capture = 1.0;", "is data, not a function")):
            (Path(scratch) / f"{name}.c").write_text(text + "\n")
            library = str(Path(scratch) / f"{name}.so")
            subprocess.run([compiler, "-shared", "-fPIC", "-o", library, str(Path(scratch) / f"{name}.c")], check=True)
            failures += refusals([sys.executable, str(source / "checker" / "benchmarks" / "python_site_benchmark.py"),
                                  library], (([], said),), timeout=60)
    return failures


def main() -> int:
    driver = Path(sys.argv[1]) / "checker" / "benchmarks" / "overhead_benchmark.py"
    failures = []
    with tempfile.TemporaryDirectory(prefix="hazardlab-overhead-") as scratch:
        folder = Path(scratch)
        program, hazardlab = write(folder / "prog", PROGRAM), write(folder / "hl", HAZARDLAB)
        launch, python = write(folder / "launch", LAUNCH), write(folder / "python", PYTHON)
        (folder / "training_loop.py").write_text("")
        base = [sys.executable, str(driver), "--hazardlab", hazardlab, "--program", program]
        # A program that is not hazardlab would run every checked configuration as the program alone.
        failures += refusals(base[:2] + ["--program", program], ((["--hazardlab", "/bin/true"],
                                                                  "argument --hazardlab: '/bin/true' is not allowed"),))
        run = subprocess.run(base + ["--rounds", "3", "--sizes", "4096,67108864", "--configs",
                              "plain,checked-keys,checked-range-keys,checked-mprotect,sample-100"],
                             capture_output=True, text=True)
        rows = [line.split() for line in run.stdout.splitlines() if line.startswith("copy ")]
        if run.returncode != 0 or len(rows) != 2 * 2 * 5:
            failures.append(f"a good run: exit {run.returncode}, {len(rows)} rows:\n{run.stdout}{run.stderr}")
        ratios = {(r[1], r[2]): r[-2] for r in rows}
        for (variant, config), ratio in ratios.items():
            want = {"plain": "1.00", "checked-keys": "1.50", "checked-range-keys": "1.25", "checked-mprotect": "3.00",
                    "sample-100": "2.00"}[config]
            if ratio != want:
                failures.append(f"{variant} {config}: ratio {ratio}, not {want}")
        calls = (folder / "calls").read_text().splitlines()
        ends = sum(c.startswith("ends ") for c in calls)
        if len(calls) != 3 * 2 * 2 * 5 or ends != len(calls) // 2:
            failures.append(f"the program ran {len(calls)} times (not 60), {ends} of them writing the ends (not half)")
        (folder / "calls").unlink()
        # The launch loop and the training loop, with and without workers, by default plain and checked.
        run = subprocess.run(base[:2] + ["--hazardlab", hazardlab, "--launch-program", launch, "--training-loop",
                                         str(folder / "training_loop.py"), "--python", python, "--rounds", "2",
                                         "--launch-steps", "300"], capture_output=True, text=True)
        rows = {(r[0], r[1], r[2]): r for r in (line.split() for line in run.stdout.splitlines())
                if len(r) > 2 and r[0] in ("launch", "train")}
        want = {("launch", "600-launches", "plain"): ("10.000", "1.00"), ("launch", "600-launches", "checked"): ("20.000", "2.00"),
                ("train", "workers-2", "plain"): ("1.000", "1.00"), ("train", "workers-2", "checked"): ("1.200", "1.20"),
                ("train", "workers-0", "plain"): ("1.000", "1.00"), ("train", "workers-0", "checked"): ("1.200", "1.20")}
        got = {key: (r[3], r[-2]) for key, r in rows.items()}
        if run.returncode != 0 or got != want:
            failures.append(f"launch and train: exit {run.returncode}, rows {got}, not {want}:\n{run.stdout}{run.stderr}")
        calls = (folder / "calls").read_text().splitlines()
        if sorted(set(calls)) != ["launch 300", "train train --epochs 4 --workers 0 --batches 100",
                                  "train train --epochs 4 --workers 2 --batches 100"] or len(calls) != 2 * 6:
            failures.append(f"launch and train ran as {calls}")
        # A budget that the first round used up: no second round.
        run = subprocess.run(base[:2] + ["--hazardlab", hazardlab, "--launch-program", launch, "--rounds", "3",
                                         "--budget-s", "0.001", "--launch-steps", "300"], capture_output=True, text=True)
        if run.returncode != 0 or "stopped after 1 of 3 rounds" not in run.stdout:
            failures.append(f"a spent budget: exit {run.returncode}, not 0 saying it stopped after 1 round:\n{run.stdout}")
        # A run that does not end is stopped, and gives no figure.
        (folder / "HANG").write_text("")
        run = subprocess.run(base[:2] + ["--hazardlab", hazardlab, "--launch-program", launch, "--rounds", "1",
                                         "--configs", "plain", "--run-timeout", "1", "--launch-steps", "300"],
                             capture_output=True, text=True, timeout=60)
        if run.returncode != 1 or "stopped after 1.0 s" not in run.stdout:
            failures.append(f"a run that hangs: exit {run.returncode}, not 1 saying it was stopped:\n{run.stdout}")
        (folder / "HANG").unlink()
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
        # A SIGTERM once the rounds are over (while the table and the figures are written): they are still written.
        late_stop = ("import os, signal, sys; sys.path.insert(0, sys.argv[1]); import overhead_benchmark as o; "
                     "table = o.table; o.table = lambda *a: (os.kill(os.getpid(), signal.SIGTERM), table(*a)); "
                     "sys.argv = sys.argv[1:]; sys.exit(o.main())")
        run = subprocess.run([sys.executable, "-c", late_stop, str(driver.parent), *base[2:], "--rounds", "1",
                              "--sizes", "4096", "--modes", "fill", "--configs", "plain",
                              "--json", str(folder / "late.json")], capture_output=True, text=True, timeout=60)
        if run.returncode != 0 or "Traceback" in run.stderr or not (folder / "late.json").exists():
            failures.append(f"a SIGTERM after the rounds: exit {run.returncode}, not 0 with the figures written:\n"
                            f"{run.stdout}{run.stderr}")
        (folder / "late.json").unlink(missing_ok=True)
        missing = str(folder / "no-such-folder" / "figures.json")
        fifo = str(folder / "figures.fifo")
        os.mkfifo(fifo)
        (folder / "calls").unlink(missing_ok=True)
        failures += refusals(base, (
            (["--sizes", "123"], "argument --sizes: '123' is not allowed; expected each item one of 4096"),
            (["--rounds", "0"], "argument --rounds: '0' is not allowed; expected a whole number from 1 to 100"),
            (["--configs", "plain,sanitizer", "--compute-sanitizer", "/nonexistent"],
             "--compute-sanitizer '/nonexistent' is not a runnable file"),
            # Another program would run in its place and leave no figure, found only after the rounds.
            (["--configs", "plain,sanitizer", "--compute-sanitizer", "/bin/true"],
             "--compute-sanitizer '/bin/true' is not compute-sanitizer"),
            (["--modes", ""], "argument --modes: '' is not allowed"),
            (["--workloads", "launch"], "the launch workload: --launch-program '' is not a runnable file"),
            (["--launch-program", program, "--launch-steps", "10"],
             "argument --launch-steps: '10' is not allowed; expected a whole number from 250 to 1000000"),
            # A repeated item would be measured twice and shown as one row with twice the rounds.
            (["--sizes", "4096,4096"], "'4096' is given twice"),
            (["--configs", "plain,checked,plain"], "'plain' is given twice"),
            (["--workloads", "copy,copy"], "'copy' is given twice"),
            (["--train-workers", "0,00"], "'00' is given twice"),
            (["--budget-s", "nan"], "argument --budget-s: 'nan' is not allowed; expected a number of seconds"),
            (["--budget-s", "inf"], "argument --budget-s: 'inf' is not allowed"),
            (["--run-timeout", "-1"], "argument --run-timeout: '-1' is not allowed"),
            # The output is checked before the rounds, not written into a folder or a missing one after them.
            (["--json", scratch], f"argument --json: '{scratch}' is not allowed; expected a file to write; it is a folder"),
            (["--json", missing], "expected a file to write in a folder that exists"),
            (["--json", str(folder / "a.json"), "--json", str(folder / "b.json")], "argument --json: given twice"),
            (["--json", program], "--json '" + program + "' is the same file as --program"),
            (["--training-loop", str(folder / "training_loop.py"), "--workloads", "copy,train", "--python", "/no/such"],
             "--python '/no/such' is not a runnable file"),
            (["--rounds", "3", "--rounds", "4"], "argument --rounds: given twice"),
            # An option no workload run here uses would be ignored without a word.
            (["--epochs", "9"], "--epochs '9' is for the train workload, which is not run here"),
            (["--train-workers", "7,1"], "--train-workers '7,1' is for the train workload"),
            (["--python", python], f"--python '{python}' is for the train workload"),
            (["--workloads", "copy", "--launch-program", launch, "--launch-steps", "300"],
             "--launch-steps '300' is for the launch workload"),
            (["--configs", "plain", "--compute-sanitizer", hazardlab],
             f"--compute-sanitizer '{hazardlab}' is for the sanitizer configuration, which is not run here"),
            # A workload's program given and the workload left out of --workloads: it would not run.
            (["--workloads", "launch", "--launch-program", launch], f"--program '{program}' is for the copy workload"),
            (["--workloads", "copy", "--training-loop", str(folder / "training_loop.py")],
             "--training-loop '" + str(folder / "training_loop.py") + "' is for the train workload"),
            # An interpreter without PyTorch, or no interpreter at all, would fail every train run.
            (["--training-loop", str(folder / "training_loop.py"), "--python", "/bin/true"],
             "--python '/bin/true' cannot import torch"),
            # The figures would be written into a pipe no one reads, after all the rounds.
            (["--json", fifo], "expected a file to write; it is not a plain file"),
            # The interpreter and the sanitizer it runs are never written over by the figures.
            (["--training-loop", str(folder / "training_loop.py"), "--python", python, "--json", python],
             f"--json '{python}' is the same file as --python"),
            (["--configs", "plain,sanitizer", "--compute-sanitizer", launch, "--json", launch],
             f"--json '{launch}' is the same file as --compute-sanitizer")))
        if list(folder.glob("**/*.json")) or (folder / "calls").exists():
            failures.append("a refused command line ran something or wrote a file")
    failures += python_site_probes(Path(sys.argv[1]))
    for f in failures:
        print(f)
    print(f"{len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
