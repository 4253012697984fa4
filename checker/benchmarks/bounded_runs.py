"""One run of a benchmark's program, bounded in time: in a process group of its own, stopped whole (the program a
checker or a sanitizer runs with it) after its time, or when the driver itself is stopped (SIGTERM, an outer time
limit), so that the runs so far are still reported."""
import os
import signal
import subprocess
import time


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


def torch_version(python: str) -> str | None:
    """The PyTorch version `python` imports, or None: the probe must print it, so that a program that is no
    interpreter (/bin/true exits 0 and prints nothing) is not taken for one with PyTorch."""
    try:
        done = subprocess.run([python, "-c", "import torch; print('torch', torch.__version__)"], capture_output=True,
                              text=True, errors="replace", timeout=300, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    said = done.stdout.strip().splitlines()
    if done.returncode != 0 or len(said) != 1 or not said[0].startswith("torch ") or len(said[0].split()) != 2:
        return None
    return said[0].split()[1]
