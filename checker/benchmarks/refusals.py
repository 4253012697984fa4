"""What the benchmark drivers' tests ask of every bad input: exit 2, and a message on stderr that names it."""
import subprocess


def refusals(command, cases, timeout=None, env=None):
    """Runs `command` + each case's arguments; returns a line for each one not refused as it must be."""
    failures = []
    for bad, said in cases:
        run = subprocess.run(command + bad, capture_output=True, text=True, timeout=timeout, env=env)
        if run.returncode != 2 or said not in run.stderr:
            failures.append(f"{bad}: exit {run.returncode}, said {run.stderr!r}, not exit 2 with {said!r}")
    return failures
