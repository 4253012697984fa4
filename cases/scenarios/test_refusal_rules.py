#!/usr/bin/env python3
"""The refusal rules, on every surface of surfaces.py: each bad input there is refused with its exit status (2 unless
the surface's own rule says otherwise), a message that names the input, and nothing changed among the user's
entries beside it (a file, a folder with a file in it, and the case's own). Run without a GPU: bad input is refused
the same with or without one.

  test_refusal_rules.py --hazardlab H --report-tool R --interference I

Exit 0 when every refusal held."""
import argparse
import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from surfaces import SURFACES  # noqa: E402

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def snapshot(top):
    state = {}
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                state[path] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                state[path] = ("folder", stat.S_IMODE(st.st_mode))
            else:
                with open(path, "rb") as f:
                    state[path] = ("file", stat.S_IMODE(st.st_mode), f.read())
    return state


def filled(text, places):
    for key, value in places.items():
        text = text.replace("{" + key + "}", value)
    return text


def refused_as_the_rules_say(surface, refusal, tools, work):
    """'' when the refusal held, else what went wrong."""
    scratch = tempfile.mkdtemp(dir=work)
    places = {**tools, "source": SOURCE, "python": sys.executable, "scratch": scratch,
              "file": os.path.join(scratch, "notes.txt"), "folder": os.path.join(scratch, "mine"),
              "missing": os.path.join(scratch, "no-such-folder", "out.json")}
    with open(places["file"], "w") as f:
        f.write("the user's notes\n")
    os.mkdir(places["folder"])
    with open(os.path.join(places["folder"], "kept.txt"), "w") as f:
        f.write("the user's\n")
    for name, text in refusal.entries.items():
        if text is None:
            os.mkdir(os.path.join(scratch, name))
        else:
            with open(os.path.join(scratch, name), "w") as f:
                f.write(text)
    argv = [filled(a, places) for a in refusal.argv]
    env = {**os.environ, **{k: filled(v, places) for k, v in refusal.env.items()}}
    before = snapshot(scratch)
    try:
        run = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=scratch, timeout=120)
    except subprocess.TimeoutExpired:
        return f"{surface.name}: {argv[1:]} did not end in 120 s"
    said = run.stdout + run.stderr
    problems = []
    if run.returncode != refusal.status:
        problems.append(f"exited {run.returncode}, not {refusal.status}")
    for text in refusal.says:
        if filled(text, places) not in said:
            problems.append(f"does not say {filled(text, places)!r}")
    if "Traceback (most recent call last)" in said:
        problems.append("printed a traceback")
    if snapshot(scratch) != before:
        problems.append("changed the user's entries")
    return f"{surface.name}: `{' '.join(argv)}` {'; '.join(problems)}:\n{said[-800:]}" if problems else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hazardlab", required=True)
    parser.add_argument("--report-tool", required=True)
    parser.add_argument("--interference", required=True)
    args = parser.parse_args()
    tools = {"hazardlab": args.hazardlab, "report_tool": args.report_tool, "interference": args.interference}
    failures, count = [], 0
    with tempfile.TemporaryDirectory(prefix="hazardlab-refusal-rules-") as work:
        for surface in SURFACES:
            if not surface.refusals:
                failures.append(f"{surface.name}: no refusal to try (surfaces.py)")
            for refusal in surface.refusals:
                count += 1
                problem = refused_as_the_rules_say(surface, refusal, tools, work)
                print(("FAIL " + problem) if problem else f"ok   {surface.name}: {' '.join(refusal.argv[1:])[:100]}")
                if problem:
                    failures.append(problem)
    print(f"{count} refusal(s) on {len(SURFACES)} surface(s); {len(failures)} not as the rules say")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
