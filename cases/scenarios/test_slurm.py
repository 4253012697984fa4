#!/usr/bin/env python3
"""The health-check program, the NHC check and the fleet job script against a real Slurm: munged,
slurmctld and slurmd (Debian: munge slurmctld slurmd slurm-client) started as root on this machine
as a one-node cluster on localhost, or as three nodes simulated on it (one slurmd each), with their
own ports, key, socket and state in a scratch folder, and stopped afterwards. The GPU run itself is
a stand-in where the scenario says so.

Where the daemons cannot start (not root, packages missing) a scenario exits 77, which ctest reports
as skipped, never passed; with CI set (CI installs the packages) that is a failure instead. A scenario
that needs a GPU exits 77 where none is usable, with CI set too (CI has none).

    test_slurm.py --list
    test_slurm.py <scenario> --source-dir S --build-dir B --tool T --cmake C [--installed PREFIX]
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SCENARIOS = {}
SKIP = 77
DAEMONS = ("munged", "slurmctld", "slurmd", "scontrol", "sbatch", "sinfo")


def scenario(fn):
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


class Failure(Exception):
    pass


class Unavailable(Exception):
    pass


class NoGpu(Exception):
    """The scenario needs a GPU and none is usable here: a skip wherever it happens, CI included."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, condition, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise Failure(f"waited {timeout} s for {what}")


# A stand-in for `hazardlab run` on a GPU node: prints what the real one prints last, from a file the
# scenario writes (PASS, or the failing line), and records its arguments.
STAND_IN = """#!/usr/bin/env bash
echo "$@" >> "{folder}/calls"
verdict=$(cat "{folder}/verdict")
echo "hazardlab: run 20261125T000000Z-node-1 started"
if [ "$verdict" = PASS ]; then echo "hazardlab: PASS: 8 GPUs healthy (health profile)"; exit 0; fi
echo "$verdict"
exit 1
"""
FAIL_LINE = "hazardlab: gpu3 (0000:41:00.0) FAIL: pinned H2D 31.2 GB/s < 80% of PCIe Gen5 x16"


class Cluster:
    """munged, slurmctld and one slurmd per node, all of them this scenario's own. One node is named as
    this machine is; several are simulated on it (Slurm's MULTIPLE_SLURMD, `slurmd -N NAME`): nodes
    n1, n2, ... on localhost, each its own slurmd with its own port, spool, pid and log files."""

    def __init__(self, root, health_program=None, health_interval=0, nodes=1):
        self.root = root
        host = socket.gethostname().split(".")[0]
        self.nodes = [host] if nodes == 1 else [f"n{i}" for i in range(1, nodes + 1)]
        self.node = self.nodes[0]
        self.conf = root / "slurm.conf"
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))
        self.started = []
        if os.geteuid() != 0:
            raise Unavailable("the Slurm daemons must run as root here")
        missing = [d for d in DAEMONS if not shutil.which(d) and not os.path.exists(f"/usr/sbin/{d}")]
        if missing:
            raise Unavailable(f"not installed: {', '.join(missing)} (Debian: munge slurmctld slurmd slurm-client)")
        (root / "state").mkdir()
        for node in self.nodes:
            (root / f"spool-{node}").mkdir()
        key = root / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        self.socket = root / "munge.sock"
        self.daemon(["munged", f"--socket={self.socket}", f"--key-file={key}", f"--pid-file={root}/munged.pid",
                     f"--log-file={root}/munged.log", f"--seed-file={root}/munge.seed", "--force"], root / "munged.pid")
        health = f"HealthCheckProgram={health_program}\nHealthCheckInterval={health_interval}\n" if health_program else ""
        if nodes == 1:
            node_lines = f"NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} RealMemory=1000 State=UNKNOWN\n"
        else:  # each node answers on its own port of this machine
            node_lines = "".join(f"NodeName={node} NodeHostname=localhost NodeAddr=127.0.0.1 Port={free_port()} "
                                 f"CPUs={os.cpu_count()} RealMemory=1000 State=UNKNOWN\n" for node in self.nodes)
        self.conf.write_text(f"""ClusterName=hazardlabtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={self.socket}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool-%n
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd-%n.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
{health}{node_lines}PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
        try:
            self.daemon(["slurmctld", "-f", self.conf, "-i"], root / "slurmctld.pid")
            for node in self.nodes:
                self.daemon(["slurmd", "-f", self.conf] + (["-N", node] if nodes > 1 else []),
                            root / f"slurmd-{node}.pid")
            for node in self.nodes:
                wait_for(f"node {node} to register", lambda: self.state(node) not in ("", "unknown"), 30)
        except (Failure, Unavailable) as e:
            self.stop()  # what did start does not outlive the scenario
            raise Unavailable(f"{e}; slurmd's log:\n{self.log('slurmd')}\nslurmctld's log:\n{self.log('slurmctld')}")

    def daemon(self, command, pid_file):
        p = subprocess.run([str(c) for c in command], env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=30)
        if p.returncode != 0:
            raise Unavailable(f"{command[0]} did not start (exit {p.returncode}): {p.stdout.strip()}")
        pid = wait_for(f"{pid_file.name}", lambda: pid_file.exists() and pid_file.read_text().strip(), 15)
        self.started.append(int(pid))

    def log(self, name):
        """The last lines of a daemon's log; slurmd's are the nodes' logs, one after another."""
        names = [f"slurmd-{node}" for node in self.nodes] if name == "slurmd" else [name]
        tails = []
        for n in names:
            path = self.root / f"{n}.log"
            tail = "\n".join(path.read_text().splitlines()[-15:]) if path.exists() else "(none)"
            tails.append(f"[{n}]\n{tail}" if len(names) > 1 else tail)
        return "\n".join(tails)

    def run(self, command, extra_env=None, timeout=120):
        return subprocess.run([str(c) for c in command], env={**self.env, **(extra_env or {})}, timeout=timeout,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=self.root)

    def show(self, node=None):
        return self.run(["scontrol", "show", "node", node or self.node]).stdout

    def state(self, node=None):
        for field in self.show(node).split():
            if field.startswith("State="):
                return field[len("State="):].lower()
        return ""

    def reason(self):
        for line in self.show().splitlines():
            line = line.strip()
            if line.startswith("Reason="):
                return line[len("Reason="):].rsplit(" [", 1)[0]
        return ""

    def stop(self):
        """`scontrol shutdown` stops slurmctld and the slurmds; munged (the first started) has no such call."""
        self.run(["scontrol", "shutdown"], timeout=30)
        for pid in reversed(self.started[1:]):  # only what this scenario started, by its id
            end(pid, grace=5)
        for pid in self.started[:1]:
            end(pid, grace=0)


def end(pid, grace):
    """Waits up to `grace` seconds for the process to exit, then sends it SIGTERM and waits for it."""
    for wait in (grace, 5):
        for _ in range(int(wait / 0.25)):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.25)
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return


def stand_in(root, verdict):
    folder = root / "stand-in"
    folder.mkdir(exist_ok=True)
    (folder / "verdict").write_text(verdict + "\n")
    program = folder / "hazardlab"
    program.write_text(STAND_IN.format(folder=folder))
    program.chmod(0o755)
    return program


def calls(root):
    path = root / "stand-in" / "calls"
    return path.read_text().splitlines() if path.exists() else []


@scenario
def health_check_program_drains_and_resumes_the_node(args, root):
    """Slurm's HealthCheckProgram (the shipped hazardlab-health-check) drains the node with hazardlab's
    line as the reason, resumes it once it passes, and leaves a drain someone else made alone."""
    program = stand_in(root, FAIL_LINE)
    config = root / "hazardlab-health"
    config.write_text(f"HAZARDLAB_BIN={program}\nHAZARDLAB_HEALTH_DIR={root}/health\n")
    # slurmd runs the program with an environment of its own: the wrapper gives it the config and the cluster.
    wrapper = root / "health-check"
    wrapper.write_text(f"#!/bin/sh\nexport HAZARDLAB_HEALTH_CONFIG={config} SLURM_CONF={root}/slurm.conf\n"
                       f"exec {pathlib.Path(args.source_dir) / 'tools/health/hazardlab-health-check'}\n")
    wrapper.chmod(0o755)
    cluster = Cluster(root, health_program=wrapper, health_interval=5)
    try:
        wait_for("the health check to drain the node", lambda: "drain" in cluster.state(), 60)
        check(cluster.reason() == FAIL_LINE, f"the drain reason is '{cluster.reason()}', not '{FAIL_LINE}'")
        check(any("run --profile health" in c for c in calls(root)), f"the stand-in was called so: {calls(root)}")
        print(f"drained: {cluster.reason()}")
        (root / "stand-in" / "verdict").write_text("PASS\n")
        wait_for("the node to be resumed", lambda: "drain" not in cluster.state(), 60)
        check(cluster.reason() == "", f"a reason stayed: {cluster.reason()}")
        print(f"resumed: {cluster.state()}")
        # A drain someone else made is theirs: two more passing checks leave it as it was.
        check(cluster.run(["scontrol", "update", f"NodeName={cluster.node}", "State=DRAIN",
                           "Reason=maintenance"]).returncode == 0, "scontrol could not drain")
        seen = len(calls(root))
        wait_for("two more health checks", lambda: len(calls(root)) >= seen + 2, 60)
        check("drain" in cluster.state() and cluster.reason() == "maintenance",
              f"someone else's drain was changed: {cluster.state()}, '{cluster.reason()}'")
    except Failure as e:
        raise Failure(f"{e}\nslurmd's log:\n{cluster.log('slurmd')}\nlast run:\n"
                      f"{(root / 'health' / 'last-run.log').read_text() if (root / 'health' / 'last-run.log').exists() else ''}")
    finally:
        cluster.stop()


# NHC itself is not packaged in Debian. Its check files are bash functions run by its driver, which
# on failure calls `die STATUS MESSAGE`, and in a Slurm cluster drains the node with "NHC: MESSAGE"
# as the reason. This is that contract, drained through the real Slurm.
NHC_DRIVER = """set -u
die() {{ shift; echo "NHC: $*" > {root}/nhc-died; scontrol update NodeName={node} State=DRAIN Reason="NHC: $*"; }}
source {check}
check_hazardlab
"""


@scenario
def nhc_check_drains_the_node_with_its_reason(args, root):
    """The shipped NHC check, run as NHC runs a check, fails with hazardlab's line, and the node is
    drained with it in a real Slurm; a passing run does not call die."""
    cluster = Cluster(root)
    try:
        check_file = pathlib.Path(args.source_dir) / "tools/health/hazardlab.nhc"
        driver = root / "nhc-driver.sh"
        driver.write_text(NHC_DRIVER.format(root=root, node=cluster.node, check=check_file))
        env = {"HAZARDLAB_BIN": str(stand_in(root, "PASS")), "HAZARDLAB_HEALTH_DIR": str(root / "nhc")}
        # The check refuses HAZARDLAB_* variables it does not read: none of this process's reach it.
        driver = ["env", *(f"--unset={name}" for name in os.environ if name.startswith("HAZARDLAB_") and name not in env),
                  "bash", driver]
        p = cluster.run(driver, env)
        check(p.returncode == 0 and not (root / "nhc-died").exists(), f"a passing node failed the check:\n{p.stdout}")
        (root / "stand-in" / "verdict").write_text(FAIL_LINE + "\n")
        p = cluster.run(driver, env)
        check(p.returncode == 1, f"check_hazardlab returned {p.returncode} for a failing node:\n{p.stdout}")
        check((root / "nhc-died").read_text().strip() == "NHC: " + FAIL_LINE, (root / "nhc-died").read_text())
        wait_for("the node to drain", lambda: "drain" in cluster.state(), 20)
        check(cluster.reason() == "NHC: " + FAIL_LINE, f"reason '{cluster.reason()}'")
        print(f"passed, then drained: {cluster.reason()}")
    finally:
        cluster.stop()


def installed(args, root):
    """The prefix of the hazardlab under test: the one given, or this build installed into the scratch folder."""
    if args.installed:
        return pathlib.Path(args.installed)
    prefix = root / "prefix"
    p = subprocess.run([args.cmake, "--install", args.build_dir, "--prefix", str(prefix)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0, p.stdout)
    return prefix


def fleet_job(prefix, root, cluster):
    """Submits the installed fleet job script to every node of the cluster with `sbatch --wait` and checks
    what a fleet operator gets: one run folder per node, named by and recording the node's Slurm name,
    one fleet row per node with that name, and the merge's exit status. Returns the job's output."""
    shared = root / "shared"
    shared.mkdir()
    script = prefix / "share/doc/hazardlab/slurm/hazardlab-fleet.sbatch"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAZARDLAB_")}
    env.update(SLURM_CONF=str(cluster.conf), CUDA_VISIBLE_DEVICES="-1", HAZARDLAB_BIN=str(prefix / "bin/hazardlab"))
    p = subprocess.run(["sbatch", "--wait", f"--nodes={len(cluster.nodes)}", f"--output={root}/job.out", str(script),
                        str(shared)], env=env, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600)
    out = (root / "job.out").read_text() if (root / "job.out").exists() else ""
    # No GPU: each node's row is SKIPPED, which the merge does not count as passed.
    check(p.returncode == 1, f"sbatch --wait exited {p.returncode}, not 1:\n{p.stdout}\n{out}")
    jobs = [d for d in shared.iterdir() if d.is_dir()]
    check(len(jobs) == 1, f"job folders: {jobs}\n{out}")
    node_folders = sorted(d.name for d in (jobs[0] / "nodes").iterdir())
    check(node_folders == sorted(cluster.nodes), f"node folders {node_folders}, not the nodes {cluster.nodes}\n{out}")
    run_of = {}
    for node in cluster.nodes:
        runs = list((jobs[0] / "nodes" / node / "results" / "runs").iterdir())
        check(len(runs) == 1, f"run folders of {node}: {runs}\n{out}")
        record = json.loads((runs[0] / "run.json").read_text())
        check(record["host"] == node and record["complete"], f"{node}'s run: host {record['host']}, "
              f"complete {record['complete']}")
        run_of[node] = record["id"]
        # A run without a GPU exits 0 (no GPU is not a failure unless HAZARDLAB_REQUIRE_GPU=1); the merge does not.
        check(f"hazardlab-fleet: {node}: exit 0" in out, f"no exit line for {node} in the job's output:\n{out}")
    fleet = json.loads((jobs[0] / "fleet" / "fleet.json").read_text())
    rows = fleet["rows"]
    check(sorted(r["host"] for r in rows) == sorted(cluster.nodes), f"rows' hosts: {[r['host'] for r in rows]}")
    for row in rows:
        check(row["verdict"] == "SKIPPED" and row["run"]["id"] == run_of[row["host"]],
              f"{row['host']}'s row: {row['verdict']}, run {row['run']['id']} (its node's: {run_of[row['host']]})")
    check(fleet["exit_status"] == 1, f"fleet.json's exit status {fleet['exit_status']}")
    return out


@scenario
def fleet_job_runs_under_sbatch(args, root):
    """The installed fleet job script, submitted with sbatch to the real cluster: srun starts the
    installed hazardlab (no GPU here: its row is SKIPPED) on the node, and the job merges the fleet."""
    prefix = installed(args, root)
    cluster = Cluster(root)
    try:
        print(fleet_job(prefix, root, cluster))
    finally:
        cluster.stop()


@scenario
def fleet_job_runs_on_three_nodes(args, root):
    """The installed fleet job script, submitted with `sbatch --nodes=3` to three nodes simulated on this
    machine (one slurmd each, one host name): srun starts the installed hazardlab on each node, each
    names its run and its fleet row by its Slurm node name, and the job merges the three (SKIPPED: exit 1)."""
    prefix = installed(args, root)
    cluster = Cluster(root, nodes=3)
    try:
        print(fleet_job(prefix, root, cluster))
    finally:
        cluster.stop()


# One checker per rank: srun starts `hazardlab check` on the rank's node, with the rank's own report file; the
# program is told its rank as Slurm set it, to print it.
RANK_WRAPPER = """#!/bin/sh
exec "{tool}" check --json "{reports}/rank-$SLURM_PROCID.json" -- "$@" "$SLURM_PROCID"
"""


def merged_verdict(verdicts):
    """The job's verdict from its ranks': found if any rank found, else not-checked if any rank was not
    wholly watched, else sampled if any rank's copies were sampled, else clean (no rank at all: not-checked)."""
    for verdict in ("found", "not-checked", "sampled"):
        if verdict in verdicts:
            return verdict
    return "clean" if verdicts and all(v == "clean" for v in verdicts) else "not-checked"


def srun_checked(cluster, root, tool, program, form, ranks):
    """`srun -n RANKS hazardlab check -- PROGRAM FORM` with one report and one output file per rank: srun's exit
    status, each rank's report (by its SLURM_PROCID), and each rank's standard output and error."""
    reports = root / f"reports-{form[0]}"
    reports.mkdir()
    wrapper = root / "hazardlab-check-rank"
    wrapper.write_text(RANK_WRAPPER.format(tool=tool, reports=reports))
    wrapper.chmod(0o755)
    p = cluster.run(["srun", "-n", str(ranks), f"--output={reports}/task-%t.out", f"--error={reports}/task-%t.err",
                     wrapper, program] + form, timeout=240)
    out = {}
    for rank in range(ranks):
        report = reports / f"rank-{rank}.json"
        stdout, stderr = (reports / f"task-{rank}.out"), (reports / f"task-{rank}.err")
        out[rank] = (json.loads(report.read_text()) if report.exists() else None,
                     stdout.read_text() if stdout.exists() else "", stderr.read_text() if stderr.exists() else "")
    return p, out


@scenario
def srun_ranks_each_checked(args, root):
    """`srun -n 2 hazardlab check -- ./prog` under the real Slurm, on a GPU: each rank is watched by a checker of
    its own, names its rank as Slurm set it (SLURM_PROCID) in its report and its console, and the ranks' verdicts
    merge into the job's, which srun's exit status gives: the racy twin (rank 1 alone races) found in rank 1 and
    clean in rank 0, srun exiting 66; the correct twin clean in both, srun exiting 0."""
    tool = pathlib.Path(args.tool).resolve()
    devices = subprocess.run([str(tool), "devices", "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, timeout=120)
    try:
        gpus = len(json.loads(devices.stdout).get("devices", [])) if devices.returncode == 0 else 0
    except json.JSONDecodeError:
        gpus = 0
    if gpus == 0:
        raise NoGpu("no usable GPU (hazardlab devices lists none)")
    program = pathlib.Path(args.build_dir) / "checker/programs/check-slurm-ranks"
    check(program.exists(), f"{program} is not built (ninja check-slurm-ranks)")
    cluster = Cluster(root)
    try:
        for form, want, exit_status in ((["unsafe-on", "1"], {0: "clean", 1: "found"}, 66),
                                        (["correct"], {0: "clean", 1: "clean"}, 0)):
            p, ranks = srun_checked(cluster, root, tool, program, form, 2)
            said = "\n".join(f"[rank {r}] {err[-3000:]}" for r, (_, _, err) in ranks.items())
            for rank, (report, stdout, stderr) in ranks.items():
                check(report is not None, f"{form}: rank {rank} wrote no report (srun exit {p.returncode}):\n"
                      f"{p.stdout}\n{said}")
                check(f"rank {rank}: 10 uploads" in stdout, f"{form}: rank {rank} printed {stdout!r}")
                watched = [q for q in report["processes"] if q.get("watching")]
                check(len(watched) == 1, f"{form}: rank {rank}'s report has {len(watched)} watched processes")
                check([q.get("rank") for q in report["processes"]] == [str(rank)],
                      f"{form}: rank {rank}'s processes name ranks {[q.get('rank') for q in report['processes']]}, "
                      f"not its SLURM_PROCID {rank}")
                check(report["verdict"] == want[rank], f"{form}: rank {rank} {report['verdict']}, not {want[rank]}:\n"
                      f"{stderr[-3000:]}")
                if want[rank] == "found":
                    hazards = [f["finding"]["hazard"] for q in report["processes"] for f in q["findings"]]
                    check(hazards and set(hazards) == {"h2d-pinned-mutate"}, f"{form}: rank {rank} found {hazards}")
                    check(f", rank {rank}," in stderr, f"{form}: rank {rank}'s console does not name it:\n{stderr}")
            merged = merged_verdict([report["verdict"] for report, _, _ in ranks.values()])
            check(p.returncode == exit_status, f"{form}: srun exited {p.returncode}, not {exit_status} (the ranks "
                  f"merged: {merged}):\n{p.stdout}\n{said}")
            check(merged == ("found" if exit_status == 66 else "clean"), f"{form}: the ranks merged: {merged}")
            print(f"{' '.join(form)}: " + ", ".join(f"rank {r} {ranks[r][0]['verdict']}" for r in ranks) +
                  f"; merged {merged}, srun exit {p.returncode}")
    finally:
        cluster.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", nargs="?")
    parser.add_argument("--list", action="store_true")
    for option in ("source-dir", "build-dir", "tool", "cmake"):
        parser.add_argument("--" + option)
    parser.add_argument("--installed", help="a hazardlab installed already (its prefix), instead of this build's")
    args = parser.parse_args()
    if args.list:
        print("\n".join(SCENARIOS))
        return 0
    if args.scenario not in SCENARIOS:
        print(f"no scenario '{args.scenario}'; --list lists them", file=sys.stderr)
        return 2
    root = pathlib.Path(tempfile.mkdtemp(prefix="hazardlab-slurm-"))
    try:
        SCENARIOS[args.scenario](args, root)
    except NoGpu as e:
        print(f"SKIPPED: {e}")
        shutil.rmtree(root, ignore_errors=True)
        return SKIP
    except Unavailable as e:
        if os.environ.get("CI"):
            print(f"FAILED: CI installs Slurm and runs as root, yet: {e}")
            return 1
        print(f"SKIPPED: a real Slurm could not start here: {e}")
        shutil.rmtree(root, ignore_errors=True)  # the scratch folder holds nothing the message does not say
        return SKIP
    except Failure as failure:
        print(f"FAILED: {failure}\n(scratch folder kept: {root})")
        return 1
    shutil.rmtree(root, ignore_errors=True)
    print(f"PASSED: {SCENARIOS[args.scenario].__doc__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
