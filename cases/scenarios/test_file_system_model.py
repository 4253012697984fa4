#!/usr/bin/env python3
"""Nothing lost, as a model of the file system: random trees of a user's entries built around and inside every
place the tools write, then random sequences of the commands that write there, with the real tools.

  test_file_system_model.py --tool HAZARDLAB --report-tool HAZARDLAB-REPORT [--cases N] [--seed S] [--scripts]

With --scripts the commands are the shell scripts that write on a node (the Slurm health check, the NHC check, the
fleet job and stage-deps's staging of packages), with a stand-in scontrol and srun and the real hazardlab, and the
user's entries are in every folder they touch: the health folder and what is in it, the shared folder, the job's
folder and a node's, the prefix packages are staged into.

The commands are those of every surface in surfaces.py (the command table, tools/'s programs and scripts, the
documented drivers) that writes where a user keeps things: a surface whose model kind is not drawn here fails the
test before any case runs (and the lint cases/lint/test_surfaces.py fails on a surface missing from the table).

The model: an entry is hazardlab's only if hazardlab made it in this case (a command's output, or a fixture made
by the real tools before the user's entries are added); everything else is the user's, whatever its name (a
file named `latest`, a folder named `runs`, a marker written by hand, a copy of a real run folder, report set or
fleet folder, a symlink, a read-only file). The one exception is a file the user names as an output
(`hazardlab check --json FILE`): the user asked for it to be written.

After every command: every byte of every user entry is still there, unchanged (type, content, link target,
mode), and a command that refused with exit 2 changed nothing at all. A failure is shrunk to the fewest user
entries and commands that still fail, and printed with the seed that replays it. Exit 0 when every case held."""
import argparse
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile

NAMES = ["latest", "current", "runs", "lock", "notes.txt", "hazardlab.prom", "fleet.json", "fleet.md",
         ".hazardlab-reports", ".hazardlab-results", ".hazardlab-report-set", ".hazardlab-run", ".hazardlab-fleet",
         "report.json", "ctest-999999999.json", f"ctest-{os.getpid()}.json", "ctest-1.json"]
RUN_ID = "20261101T000000Z-model-1"
# The commands a case draws from: every surface of surfaces.py that writes has its kind here (checked at start).
COMMAND_KINDS = ("report", "report-keep", "report-prometheus", "merge", "session-start", "check", "ctest-manifest")
SCRIPT_KINDS = ("health-check", "health-check-prometheus", "nhc", "sbatch", "stage-unpacked")
# The names the scripts write (their folders, marker, logs, and the job ids the stand-in Slurm gives).
SCRIPT_NAMES = ["last-run.log", ".hazardlab-health", "results", "reports", "1", "2", "nodes", "n1", "run.log",
                "fleet", "include", "lib", "gtest", "gtest.h", "libgtest.a", "libgtest.so", ".stage-deps-files"]
SCRIPT_PLACES = ("health", "health/results", "health/reports", "shared", "shared/1", "shared/1/nodes",
                 "shared/1/nodes/n1", "prom", "deps", "deps/include", "deps/include/gtest", "deps/lib", ".")
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Fixtures:
    """Real run folders, report folders and fleet folders, made once by the real tools, to be copied (cp -a) into
    a case's tree as a user would keep a copy beside the originals."""

    def __init__(self, tool, report_tool, base):
        self.tool, self.report_tool = tool, report_tool
        self.root = os.path.join(base, "fixtures", "results")
        self.run = start_run(tool, self.root, RUN_ID)
        self.reports = os.path.join(base, "fixtures", "reports")
        self.fleet = os.path.join(base, "fixtures", "fleet")
        # A run with no GPU reports and merges with a non-zero status (nothing passed): what counts is that
        # the folders were written.
        for command, made in (([report_tool, "--run", self.run, "--out", self.reports], self.reports),
                              ([report_tool, "merge", "--out", self.fleet, self.run], self.fleet)):
            out = subprocess.run(command, capture_output=True, text=True)
            if not os.path.isdir(made) or out.returncode not in (0, 1):
                sys.exit(f"cannot make the fixtures: {' '.join(command)}: {out.stdout}{out.stderr}")
        self.report_set = os.path.join(self.reports, "runs", RUN_ID)


def ended_pid():
    """The pid of a process that has ended: a run owned by it is over, and its lock is stale."""
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def start_run(tool, root, run_id, env=None):
    out = subprocess.run([tool, "session-start", "--results-root", root, "--run-id", run_id, "--owner-pid",
                          str(ended_pid())], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"cannot start a fixture run: {out.stdout}{out.stderr}")
    return os.path.join(root, "runs", run_id)


def remove_scratch(top):
    """Removes a scratch folder of this test's, read-only entries included (never a link's target)."""
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755)
    shutil.rmtree(top, ignore_errors=True)


# ---- a snapshot of every entry under a folder ----------------------------------------------------------------

def entry_state(path):
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(path))
    if stat.S_ISDIR(st.st_mode):
        return ("folder", stat.S_IMODE(st.st_mode))
    with open(path, "rb") as f:
        return ("file", stat.S_IMODE(st.st_mode), f.read())


def snapshot(top):
    state = {}
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(folder, name)
            state[os.path.relpath(path, top)] = entry_state(path)
    return state


# ---- a case: a user's tree, and commands -----------------------------------------------------------------------

def make_entry(rng, fixtures, base, where, name):
    """One user entry at `where/name`; returns a description for the failure's printout."""
    path = os.path.join(base, where, name)
    parent = os.path.dirname(path)
    ancestor = parent
    while len(ancestor) > len(base):
        if os.path.lexists(ancestor) and (os.path.islink(ancestor) or not os.path.isdir(ancestor)):
            return None  # an entry of the user's already has that name
        ancestor = os.path.dirname(ancestor)
    os.makedirs(parent, exist_ok=True)
    if os.path.lexists(path):
        return None
    kind = rng.choice(["file", "file", "folder", "read-only", "symlink", "symlink-into-runs", "copy-of-run",
                       "copy-of-report-set", "copy-of-reports", "copy-of-fleet", "hand-marker"])
    if kind in ("file", "read-only", "hand-marker"):
        with open(path, "w") as f:
            f.write("A report set written by hazardlab.\n" if kind == "hand-marker" else f"mine {rng.random()}\n")
        if kind == "read-only":
            os.chmod(path, 0o444)
    elif kind == "folder":
        os.makedirs(path)
        with open(os.path.join(path, "notes.txt"), "w") as f:
            f.write("mine\n")
    elif kind == "symlink":
        os.symlink("notes.txt", path)
    elif kind == "symlink-into-runs":
        os.symlink(os.path.join("runs", RUN_ID), path)
    else:
        source = {"copy-of-run": fixtures.run, "copy-of-report-set": fixtures.report_set,
                  "copy-of-reports": fixtures.reports, "copy-of-fleet": fixtures.fleet}[kind]
        shutil.copytree(source, path, symlinks=True)  # cp -a: the same files, in new folders
    return f"{kind} at {os.path.join(where, name)}"


def commands_of(rng, tool, report_tool, run, base, count):
    places = {"reports": os.path.join(base, "reports"), "fleet": os.path.join(base, "fleet"),
              "prom": os.path.join(base, "prom"), "root": os.path.join(base, "root"), "out": os.path.join(base, "out"),
              "specs": os.path.join(base, "specs")}
    commands = []
    for _ in range(count):
        kind = rng.choice(COMMAND_KINDS)
        if kind == "report":
            commands.append(([report_tool, "--run", run, "--out", places["reports"]], {}, []))
        elif kind == "report-keep":
            commands.append(([report_tool, "--run", run, "--out", places["reports"], "--keep", "1"], {}, []))
        elif kind == "report-prometheus":
            commands.append(([report_tool, "--run", run, "--out", places["reports"], "--prometheus", places["prom"]],
                             {}, []))
        elif kind == "merge":
            commands.append(([report_tool, "merge", "--out", places["fleet"], run], {}, []))
        elif kind == "session-start":
            run_id = f"20261102T00000{rng.randrange(10)}Z-model-{rng.randrange(1000)}"
            commands.append(([tool, "session-start", "--results-root", places["root"], "--run-id", run_id,
                              "--owner-pid", str(ended_pid())], {"HAZARDLAB_KEEP_RUNS": "1"}, []))
        elif kind == "ctest-manifest":  # ctest's resource spec files, among a user's files of their names
            commands.append(([tool, "ctest-manifest", "--default-results-root", os.path.join(base, "manifest-root"),
                              "--default-reports-dir", os.path.join(base, "manifest-reports"), "--resource-spec-dir",
                              places["specs"]], {}, []))
        else:
            named = [os.path.join(places["out"], n) for n in ("check.json", "check.md", "check.html")]
            commands.append(([tool, "check", "--json", named[0], "--markdown", named[1], "--html", named[2], "--",
                              "true"], {}, named))
    return commands


class StandIns:
    """A stand-in scontrol (it logs what it is asked, and says the node has no reason) and srun (it runs the job's
    command once, as node n1), and unpacked packages for stage-unpacked, in a folder of this test's outside every
    case's tree."""

    PACKAGE_FILES = {"include/gtest/gtest.h": "the package's header\n", "lib/libgtest.a": "a library\n"}

    def __init__(self, work):
        self.bin = os.path.join(work, "stand-ins")
        os.makedirs(self.bin)
        self.unpacked = os.path.join(work, "unpacked", "usr")
        for path, text in self.PACKAGE_FILES.items():
            os.makedirs(os.path.dirname(os.path.join(self.unpacked, path)), exist_ok=True)
            with open(os.path.join(self.unpacked, path), "w") as f:
                f.write(text)
        os.symlink("libgtest.a", os.path.join(self.unpacked, "lib", "libgtest.so"))
        for name, text in (("scontrol", f'#!/bin/sh\necho "$*" >> {work}/scontrol.log\n'),
                           ("srun", '#!/bin/sh\nwhile [ "${1#--}" != "$1" ]; do shift; done\n'
                                    'SLURMD_NODENAME=n1 exec "$@"\n')):
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        self.config = os.path.join(work, "health.conf")


def script_commands_of(rng, tool, stand_ins, base, count):
    health, shared, prom = (os.path.join(base, p) for p in ("health", "shared", "prom"))
    env = {"PATH": stand_ins.bin + os.pathsep + os.environ["PATH"], "SLURMD_NODENAME": "n1",
           "SCONTROL": os.path.join(stand_ins.bin, "scontrol"), "HAZARDLAB_HEALTH_CONFIG": stand_ins.config}
    commands = []
    for _ in range(count):
        kind = rng.choice(SCRIPT_KINDS)
        if kind.startswith("health-check"):
            config = f"HAZARDLAB_BIN={tool}\nHAZARDLAB_HEALTH_DIR={health}\n"
            if kind.endswith("prometheus"):
                config += f"HAZARDLAB_PROMETHEUS_DIR={prom}\n"
            commands.append((["bash", os.path.join(SOURCE, "tools/health/hazardlab-health-check")],
                             {**env, "HEALTH_CONFIG_TEXT": config}, []))
        elif kind == "stage-unpacked":  # stage-deps --with-packages's staging, into a prefix among a user's files
            # --replace asks by name to write over the user's files in the package's places (never a link or a
            # folder): those, and only those, may change.
            replace = ["--replace"] if rng.random() < 0.5 else []
            prefix = os.path.join(base, "deps")
            asked = [os.path.join(prefix, path) for path in StandIns.PACKAGE_FILES] if replace else []
            commands.append((["bash", os.path.join(SOURCE, "tools/deps/stage-unpacked"), *replace, stand_ins.unpacked,
                              prefix], env, asked))
        elif kind == "nhc":  # NHC's environment holds no HAZARDLAB_* of the Slurm program's (the check refuses them)
            script = (f'unset ${{!HAZARDLAB_@}}; die() {{ echo "die $*"; }}; '
                      f'. {os.path.join(SOURCE, "tools/health/hazardlab.nhc")}; '
                      f'HAZARDLAB_BIN={tool} HAZARDLAB_HEALTH_DIR={health} check_hazardlab')
            commands.append((["bash", "-c", script], env, []))
        else:
            commands.append((["bash", os.path.join(SOURCE, "tools/slurm/hazardlab-fleet.sbatch"), shared],
                             {**env, "HAZARDLAB_BIN": tool, "SLURM_JOB_ID": str(rng.choice([1, 2]))}, []))
    return commands


def user_tree(rng, fixtures, base, scripts=False):
    """Entries of the user's around and inside every place the tools write; returns their descriptions."""
    made = []
    places = SCRIPT_PLACES if scripts else ("reports", "reports/runs", "fleet", "prom", "root", "root/runs", "out",
                                            "specs", ".")
    for where in places:
        for _ in range(rng.randrange(0, 3)):
            name = rng.choice(NAMES + [RUN_ID, "20261100T000000Z-my-copy"])
            if scripts and rng.random() < 0.7:
                name = rng.choice(SCRIPT_NAMES)
            description = make_entry(rng, fixtures, base, where, name)
            if description:
                made.append(description)
    return made


def run_case(tool, report_tool, fixtures, work, seed, keep_entries=None, keep_commands=None, stand_ins=None):
    """Builds and runs case `seed`; returns (problem or None, entries, commands). The keep_* lists select a
    subset when shrinking."""
    rng = random.Random(seed)
    base = tempfile.mkdtemp(dir=work)
    try:
        # What hazardlab itself may have made before the user came: nothing, or a real report folder, fleet folder
        # or results root in the places the commands write.
        for place in () if stand_ins else ("reports", "fleet", "root"):
            if rng.random() < 0.3:
                target = os.path.join(base, place)
                if place == "reports":
                    subprocess.run([report_tool, "--run", fixtures.run, "--out", target], capture_output=True)
                elif place == "fleet":
                    subprocess.run([report_tool, "merge", "--out", target, fixtures.run], capture_output=True)
                else:
                    start_run(tool, target, RUN_ID)
        if stand_ins and rng.random() < 0.3:  # the health check ran here before: its folder is its own
            before = script_commands_of(random.Random(seed), tool, stand_ins, base, 1)[0]
            run_command(before)
        theirs = snapshot(base)
        entries = user_tree(rng, fixtures, base, scripts=bool(stand_ins))
        if stand_ins:
            commands = script_commands_of(rng, tool, stand_ins, base, rng.randrange(1, 4))
        else:
            commands = commands_of(rng, tool, report_tool, fixtures.run, base, rng.randrange(1, 4))
        if keep_entries is not None:  # shrinking: take away the entries not kept, then the commands
            for i, description in enumerate(entries):
                if i not in keep_entries:
                    path = os.path.join(base, description.split(" at ", 1)[1])
                    if os.path.islink(path) or os.path.isfile(path):
                        os.chmod(path, 0o644) if not os.path.islink(path) else None
                        os.remove(path)
                    elif os.path.isdir(path):
                        shutil.rmtree(path)
        if keep_commands is not None:
            commands = [c for i, c in enumerate(commands) if i in keep_commands]
        user = {k: v for k, v in snapshot(base).items() if k not in theirs}
        for command, env, named in commands:
            before = snapshot(base)
            out = run_command((command, env, named))
            after = snapshot(base)
            said = f"`{' '.join(os.path.relpath(c, base) if c.startswith(base) else c for c in command)}` exited {out.returncode}"
            if out.returncode < 0:
                return f"{said}: crashed", entries, commands
            asked = {os.path.relpath(n, base) for n in named}
            for path, state in list(user.items()):
                if path in asked:  # what the user asked for is the user's new state, kept from here on
                    if path in after:
                        user[path] = after[path]
                    else:
                        del user[path]
                    continue
                if after.get(path) != state:
                    what = "removed" if path not in after else "changed"
                    return f"{said} and {what} the user's {path}:\n{out.stdout}{out.stderr}", entries, commands
            if out.returncode == 2 and after != before:
                changed = sorted(set(after) ^ set(before) | {p for p in after if p in before and after[p] != before[p]})
                return f"{said} (refused) but changed {changed[:5]}:\n{out.stderr}", entries, commands
        return None, entries, commands
    finally:
        remove_scratch(base)


def run_command(command):
    """Runs one command of a case; a health check's config is written first (outside the case's tree)."""
    argv, env, _ = command
    env = dict(env)
    text = env.pop("HEALTH_CONFIG_TEXT", None)
    if text is not None:
        with open(env["HAZARDLAB_HEALTH_CONFIG"], "w") as f:
            f.write(text)
    return subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **env}, timeout=120)


def shrink(tool, report_tool, fixtures, work, seed, entries, commands, stand_ins=None):
    """The fewest entries and commands that still fail (one at a time, until no single removal keeps it failing)."""
    keep_e, keep_c = set(range(len(entries))), set(range(len(commands)))
    changed = True
    while changed:
        changed = False
        for group in ("e", "c"):
            for i in sorted(keep_e if group == "e" else keep_c):
                trial_e = keep_e - {i} if group == "e" else keep_e
                trial_c = keep_c - {i} if group == "c" else keep_c
                if not trial_c:
                    continue
                problem, _, _ = run_case(tool, report_tool, fixtures, work, seed, trial_e, trial_c, stand_ins)
                if problem:
                    keep_e, keep_c, changed = trial_e, trial_c, True
    problem, _, _ = run_case(tool, report_tool, fixtures, work, seed, keep_e, keep_c, stand_ins)
    return problem, [entries[i] for i in sorted(keep_e)], [commands[i] for i in sorted(keep_c)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tool", required=True)
    p.add_argument("--report-tool", required=True)
    p.add_argument("--cases", type=int, default=500)
    p.add_argument("--seed", type=int, default=None, help="replay one case")
    p.add_argument("--scripts", action="store_true", help="the node's shell scripts, not the C++ tools")
    args = p.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from surfaces import SURFACES
    drawn = COMMAND_KINDS + SCRIPT_KINDS
    unmodelled = [f"{s.name} ({s.model})" for s in SURFACES if s.model is not None and s.model not in drawn]
    if unmodelled:
        print(f"FAIL: surfaces that write, whose command the model does not draw: {unmodelled}")
        return 1
    modelled = sorted(s.name for s in SURFACES if s.model is not None)
    print(f"the model draws the commands of {len(modelled)} surfaces that write: {', '.join(modelled)}")
    work = tempfile.mkdtemp(prefix="hazardlab-fs-model-")
    try:
        fixtures = Fixtures(args.tool, args.report_tool, work)
        stand_ins = StandIns(work) if args.scripts else None
        seeds = [args.seed] if args.seed is not None else [random.randrange(1 << 48) for _ in range(args.cases)]
        commands_run = 0
        for seed in seeds:
            problem, entries, commands = run_case(args.tool, args.report_tool, fixtures, work, seed,
                                                  stand_ins=stand_ins)
            commands_run += len(commands)
            if problem:
                problem, entries, commands = shrink(args.tool, args.report_tool, fixtures, work, seed, entries, commands,
                                                    stand_ins)
                shown = [" ".join([os.path.basename(c[0][0])] + c[0][1:]) for c in commands]
                print(f"FAIL (replay: test_file_system_model.py ...{' --scripts' if args.scripts else ''} --seed {seed})\n  the user's entries: {entries}\n"
                      f"  the commands: {shown}\n  {problem}")
                return 1
        print(f"{len(seeds)} case(s), {commands_run} command(s): every user entry kept, every refusal changed nothing")
        return 0
    finally:
        remove_scratch(work)


if __name__ == "__main__":
    sys.exit(main())
