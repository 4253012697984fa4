#!/usr/bin/env python3
"""Runs as a user has them: the real hazardlab tools and the real ctest registration, driven from
outside, with every report and run record checked against the shipped JSON Schemas.

GPUs are hidden (CUDA_VISIBLE_DEVICES=-1), so the GPU cases skip honestly and the scenarios run
the same on a GPU machine and without one.

    test_runs.py --list
    test_runs.py <scenario> --source-dir S --build-dir B --register-script R --tool T ...
"""
import argparse
import csv
import hashlib
import html.parser
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta

import jsonschema

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class World:
    """A scratch folder with its own ctest directory that includes the build's registration."""

    def __init__(self, args):
        self.args = args
        self.root = pathlib.Path(tempfile.mkdtemp(prefix="hazardlab-scenario-"))
        self.ctest_dir = self.root / "ctest"
        self.ctest_dir.mkdir()
        (self.ctest_dir / "CTestTestfile.cmake").write_text(f'include("{args.register_script}")\n')
        self.results = self.root / "results"
        self.reports = self.root / "reports"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("HAZARDLAB_")}
        self.env.update(CUDA_VISIBLE_DEVICES="-1", HAZARDLAB_RESULTS_ROOT=str(self.results),
                        HAZARDLAB_REPORTS_DIR=str(self.reports))
        source = pathlib.Path(args.source_dir)
        self.report_schema = json.loads((source / "reports/schema/gpu-report.schema.json").read_text())
        self.run_schema = json.loads((source / "record/schema/run-record.schema.json").read_text())

    def run(self, command, extra_env=None, cwd=None, timeout=600):
        env = dict(self.env)
        env.update(extra_env or {})
        p = subprocess.run([str(c) for c in command], env=env, cwd=cwd or self.root, timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return p.returncode, p.stdout

    def ctest(self, *filters, extra_env=None):
        return self.run([self.args.ctest, "--test-dir", self.ctest_dir, "-j4", "--output-on-failure", *filters],
                        extra_env)

    def start_ctest(self, *filters):
        return subprocess.Popen([self.args.ctest, "--test-dir", str(self.ctest_dir), "-j4", "--output-on-failure",
                                 *filters], env=self.env,
                                cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def run_ids(self):
        runs = self.results / "runs"
        return sorted(p.name for p in runs.iterdir() if p.is_dir()) if runs.exists() else []

    def run_record(self, run_id):
        return json.loads((self.results / "runs" / run_id / "run.json").read_text())

    def link(self, name):
        return os.readlink(self.reports / name).split("/")[-1]

    def validate_everything(self):
        """Every run record and report written so far follows its schema."""
        count = 0
        for path in list(self.results.glob("runs/*/run.json")) + list(self.reports.glob("runs/*/run.json")):
            jsonschema.validate(json.loads(path.read_text()), self.run_schema)
            count += 1
        for path in self.reports.glob("runs/*/*.json"):
            if path.name != "run.json":
                jsonschema.validate(json.loads(path.read_text()), self.report_schema)
                count += 1
        check(count > 0, "nothing to validate")
        return count


def tree_digest(folder):
    digest = {}
    for path in sorted(pathlib.Path(folder).rglob("*")):
        digest[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "<dir>"
    return digest


def registered_case_count(world):
    rc, out = world.run([world.args.tool, "list"])
    check(rc == 0, out)
    return sum(1 for line in out.splitlines() if line.startswith("  "))


@scenario
def complete_then_partial_then_complete(world):
    """A full run, a one-case lab run, a full run: the lab run never replaces the current reports."""
    rc, out = world.ctest()
    check(rc == 0, "the first full run failed:\n" + out)
    first = world.run_ids()[-1]
    record = world.run_record(first)
    check(record["complete"] and record["state"] == "finished", f"first run not complete: {record}")
    check(record["selection"]["all"], f"first run's selection: {record['selection']}")
    check(world.link("current") == first, "the complete run is not current")
    current_digest = tree_digest(world.reports / "runs" / first)

    time.sleep(1.1)  # run ids have a resolution of one second per process
    rc, out = world.ctest("-R", "h2d-pinned-mutate/unsafe", "-V")  # the README's lab run
    check(rc == 0, "the one-case run failed:\n" + out)
    second = world.run_ids()[-1]
    check(second != first, "the lab run had no run folder of its own")
    record = world.run_record(second)
    check(not record["complete"], "a one-case run says it is complete")
    check("-R h2d-pinned-mutate/unsafe" in record["selection"]["filters"], f"selection: {record['selection']}")
    check(len(record["not_run"]) == registered_case_count(world) - 1 + 3, f"not run: {len(record['not_run'])}")
    check(world.link("current") == first, "the lab run replaced the current reports")
    check(world.link("latest") == second, "the lab run is not the latest")
    check(tree_digest(world.reports / "runs" / first) == current_digest, "the current report set changed")
    partial = json.loads((world.reports / "runs" / second / "nogpu.json").read_text())
    check(partial["verdict"] == "PARTIAL" and not partial["run"]["complete"], f"lab report: {partial['verdict']}")
    check("PARTIAL" in out and "unchanged" in out, "ctest's output does not say the run was partial:\n" + out)

    time.sleep(1.1)
    rc, out = world.ctest()
    check(rc == 0, "the second full run failed:\n" + out)
    third = world.run_ids()[-1]
    check(world.link("current") == third, "the second complete run did not become current")
    junit = (world.reports / "current" / "nogpu.junit.xml").read_text()
    cases = junit.count("<testcase ")
    check(cases == registered_case_count(world) + 3, f"JUnit lists {cases} test cases")
    print(f"validated {world.validate_everything()} run records and reports against the schemas")


@scenario
def concurrent_runs_keep_both(world):
    """Two ctest runs on one build tree at once: both finish intact, or the second is refused and says by whom."""
    runs = [world.start_ctest(), world.start_ctest()]
    outputs = [p.communicate(timeout=600)[0] for p in runs]
    finished = 0
    for p, out in zip(runs, outputs):
        if p.returncode == 0:
            finished += 1
        else:
            check("is in use by run" in out and "pid" in out, "a run failed without naming the holder:\n" + out)
    check(finished >= 1, "neither run finished:\n" + "\n".join(outputs))
    cases = registered_case_count(world) + 3
    for run_id in world.run_ids():
        record = world.run_record(run_id)
        check(record["state"] == "finished" and record["complete"], f"run {run_id} was damaged: {record}")
        results = list((world.results / "runs" / run_id / "nogpu").glob("*.json"))
        perf = list((world.results / "runs" / run_id / "nogpu" / "perf").glob("*.json"))
        check(len(results) + len(perf) == cases, f"run {run_id} has {len(results) + len(perf)} of {cases} results")
    check(not (world.results / "lock").exists(), "the lock was left behind")

    # Deterministically: a run that holds the lock (this process, this host) refuses the next one.
    before = tree_digest(world.results)
    (world.results / "lock").write_text(json.dumps(
        {"run_id": "held-by-a-test", "host": os.uname().nodename, "pid": os.getpid(), "started_at": "now"}))
    rc, out = world.ctest()
    check(rc != 0, "a run went ahead while another held the results root")
    check("in use by run held-by-a-test" in out and f"pid {os.getpid()}" in out, "the holder is not named:\n" + out)
    (world.results / "lock").unlink()
    check(tree_digest(world.results) == before, "the refused run changed the results root")


def add_gpu_tests(world, *tests):
    """GPU tests registered beside the plan's as hazardlab_add_gpu_test registers them: (name, launcher options,
    command) each, run through `hazardlab gpu-test` with one GPU asked of ctest."""
    lines = []
    for name, options, command in tests:
        words = " ".join(f'"{w}"' for w in [world.args.tool, "gpu-test", *options, "--", *command])
        lines += [f"add_test({name} {words})",
                  f"set_tests_properties({name} PROPERTIES RESOURCE_GROUPS gpus:1 SKIP_RETURN_CODE 77"
                  f"{' RUN_SERIAL ON' if options else ''})"]
    with open(world.ctest_dir / "CTestTestfile.cmake", "a") as f:
        f.write("\n".join(lines) + "\n")


@scenario
def gpu_tests_get_their_gpu_from_ctest(world):
    """A GPU test registered with hazardlab_add_gpu_test gets its GPU from ctest's resource allocation, over the
    resource spec the plan writes when ctest starts: with no GPU it is skipped, never run and never passed (and
    fails where a GPU is required); with a spec of one's own it sees the GPU ctest gave it, alone."""
    show = ["sh", "-c", "echo visible=$CUDA_VISIBLE_DEVICES; exit 3"]
    add_gpu_tests(world, ("gpu-test/one", [], ["false"]), ("gpu-test/all", ["--all-gpus"], ["false"]),
                  ("gpu-test/show", [], show))
    rc, out = world.ctest("-R", "gpu-test/(one|all)", "-V")
    check(rc == 0 and out.count("***Skipped") == 2, "GPU tests without a GPU were not skipped:\n" + out)
    check("no usable GPU on this machine" in out, "the skip does not say why:\n" + out)
    rc, out = world.ctest("-R", "gpu-test/one", extra_env={"HAZARDLAB_REQUIRE_GPU": "1"})
    check(rc != 0 and "requires a GPU" in out, "a required GPU's absence did not fail the test:\n" + out)
    # ctest's own allocation, from a spec of one's own: GPU 1 of the two that CUDA_VISIBLE_DEVICES names.
    spec = world.root / "spec.json"
    spec.write_text(json.dumps({"version": {"major": 1, "minor": 0}, "local": [{"gpus": [{"id": "1", "slots": 1}]}]}))
    rc, out = world.ctest("-R", "gpu-test/show", "--resource-spec-file", spec,
                          extra_env={"CUDA_VISIBLE_DEVICES": "5,7"})
    check(rc != 0 and "visible=7" in out and "ctest gave this test GPU 1" in out,
          "the test did not see the GPU ctest gave it, alone:\n" + out)


@scenario
def session_start_refuses_what_is_not_its_own(world):
    """A folder with someone's files, a regular file, the current folder, the home folder: refused, untouched."""
    mine = world.root / "mine"
    (mine / "deep").mkdir(parents=True)
    (mine / "thesis.tex").write_text("years of work")
    (mine / "deep" / "data.csv").write_text("1,2,3")
    a_file = world.root / "notes.txt"
    a_file.write_text("keep me")
    home = world.root / "home"
    home.mkdir()
    cases = [(mine, {}, None, "thesis.tex"), (a_file, {}, None, "not a folder"),
             (pathlib.Path("."), {}, mine, "current folder"), (home, {"HOME": str(home)}, None, "home folder")]
    for target, env, cwd, says in cases:
        before = tree_digest(world.root)
        rc, out = world.run([world.args.tool, "session-start", "--results-root", target, "--run-id", "r",
                             "--owner-pid", os.getpid()], env, cwd=cwd)
        check(rc == 2, f"session-start on {target} exited {rc}:\n{out}")
        check(says in out, f"session-start on {target} does not say '{says}':\n{out}")
        check(tree_digest(world.root) == before, f"session-start on {target} changed something")


@scenario
def bad_input_exits_2_everywhere(world):
    """Typos and impossible arguments fail before any GPU is looked for, naming the input."""
    tool, cases, perf = world.args.tool, world.args.cases, world.args.perf
    manifest = [tool, "ctest-manifest", "--default-results-root", world.results, "--default-reports-dir",
                world.reports]
    expectations = [
        ([tool, "list"], {"HAZARDLAB_TRAILS": "5"}, 0, "did you mean HAZARDLAB_TRIALS"),
        ([tool, "list"], {"HAZARDLAB_TRAILS": "5", "HAZARDLAB_STRICT": "1"}, 2, "HAZARDLAB_TRAILS"),
        ([tool, "list"], {"HAZARDLAB_TRIALS": ""}, 2, "HAZARDLAB_TRIALS is set but empty"),
        ([tool, "list"], {"HAZARDLAB_TRIALS": "-3"}, 2, "expected a whole number from 1"),
        (manifest, {"HAZARDLAB_SANITIZE": "garbage"}, 2, "HAZARDLAB_SANITIZE='garbage'"),
        (manifest, {"HAZARDLAB_PERF_PROFILE": "medium"}, 2, "HAZARDLAB_PERF_PROFILE='medium'"),
        (manifest, {"HAZARDLAB_NVBANDWIDTH": "/no/such/nvbandwidth"}, 2, "HAZARDLAB_NVBANDWIDTH='/no/such/nvbandwidth'"),
        ([tool, "session-start", "--results-root", world.results], {}, 2, "--run-id"),
        ([tool, "no-such-command"], {}, 2, "no command 'no-such-command'"),
        ([cases, "--device", "-1"], {}, 2, "--device '-1'"),
        ([cases, "--device", "99"], {}, 2, "--device 99"),
        ([cases, "--device", "gpu0"], {}, 2, "--device 'gpu0'"),
        ([cases, "--device", "99", "--hazard", "h2d-pinned-mutate", "--variant", "stream-synchronize", "--warm"], {}, 2,
         "--device 99"),
        ([cases, "--device", "none", "--hazard", "h2d-pinned-mutate", "--variant", "no-such", "--warm"], {}, 2,
         "no case matches"),
        ([cases, "--device", "none", "--gtest_filter=NoSuchCase*"], {}, 2, "selects none"),
        ([cases, "--device", "none", "--hazard", "no-such-hazard"], {}, 2, "no case matches"),
        ([cases, "--device", "none"], {"HAZARDLAB_RUN_DIR": str(world.root)}, 2, "is not a run folder"),
        ([perf, "--device", "none", "--part", "everything"], {}, 2, "--part"),
        ([perf, "--device", "-1", "--part", "overlap"], {}, 2, "--device '-1'"),
        ([world.args.report_tool, "--run", world.root / "nothing", "--out", world.reports], {}, 2, "no run folder"),
        # hazardlab-report reads HAZARDLAB_PROMETHEUS_DIR as `hazardlab report` does, and refuses a slip in it.
        ([world.args.report_tool, "--run", world.root / "nothing", "--out", world.reports],
         {"HAZARDLAB_PROMETHEUS_DIR": "P "}, 2, "HAZARDLAB_PROMETHEUS_DIR='P '"),
        (manifest + ["--cases", world.root / "mine.txt"], {}, 2, "expected an executable file"),
        (manifest, {"HAZARDLAB_RESULTS_ROOT": str(world.root / "mine.txt")}, 2, "is not a folder"),
        # `hazardlab check` reads its numbers as every other option does, and says where the program goes.
        ([tool, "check", "--error-exitcode", "0x46", "--", "true"], {}, 2, "'0x46' is not allowed"),
        ([tool, "check", "--unchecked-exitcode", "+70", "--", "true"], {}, 2, "'+70' is not allowed"),
        ([tool, "check", "--sample", " 70", "--", "true"], {}, 2, "' 70' is not allowed"),
        ([tool, "check", "-la", "ls"], {}, 2, "is not an option of hazardlab check"),
        # An empty value is a slip, never "not given": no default soak, validation or metrics-less run.
        ([tool, "run", "--profile", "soak", "--duration", ""], {}, 2, "--duration: '' is not allowed"),
        ([tool, "run", "--profile", ""], {}, 2, "--profile: '' is not allowed"),
        ([tool, "run", "--prometheus", ""], {}, 2, "--prometheus: '' is not allowed"),
        ([tool, "report", "--run", world.root, "--out", world.reports, "--prometheus", " "], {}, 2,
         "--prometheus: ' ' is not allowed"),
        # A report never replaces a link, the program being checked, or a file it could not write.
        ([tool, "check", "--json", world.root / "report-link.json", "--", "true"], {}, 2, "is a symbolic link"),
        ([tool, "check", "--json", world.root / "program", "--", world.root / "program"], {}, 2,
         "is the program to check"),
        # A duration is a soak's: with another profile it is refused, not recorded and ignored.
        ([tool, "run", "--duration", "90s"], {}, 2, "--duration 90s applies only to --profile soak"),
        ([tool, "check", "--", "true"], {"HL_CHECK_SAMPLE": "abc"}, 2, "HL_CHECK_SAMPLE"),
        ([tool, "check", "--", "true"], {"HL_CHECK_EVERY_OCCURRENCE": "maybe"}, 2, "HL_CHECK_EVERY_OCCURRENCE"),
        ([tool, "check", "--", "true"], {"HL_CHECK_PROTECTION": "pkeys"}, 2, "HL_CHECK_PROTECTION"),
        ([tool, "check", "--protection", "pkeys", "--", "true"], {}, 2, "--protection"),
    ]
    (world.root / "mine.txt").write_text("mine")
    os.symlink("mine.txt", world.root / "report-link.json")
    shutil.copy("/bin/true", world.root / "program")
    for command, env, expected, says in expectations:
        rc, out = world.run(command, env)
        shown = " ".join(f"{k}={v}" for k, v in env.items()) + " " + " ".join(str(c) for c in command[1:])
        check(rc == expected, f"`{shown}` exited {rc}, not {expected}:\n{out}")
        check(says in out, f"`{shown}` does not say '{says}':\n{out}")
    check(not world.reports.exists(), "a failed command wrote reports")
    check((world.root / "mine.txt").read_text() == "mine" and os.path.islink(world.root / "report-link.json"),
          "a report replaced the user's link")
    check(open(world.root / "program", "rb").read() == open("/bin/true", "rb").read(), "a report overwrote the program")

    # Through ctest: a bad setting is one loud failing test, never a run of nothing.
    rc, out = world.ctest(extra_env={"HAZARDLAB_SANITIZE": "garbage"})
    check(rc != 0 and "HAZARDLAB_SANITIZE='garbage'" in out, "ctest with a bad setting:\n" + out)
    # So is a run filtered by name or label: every name the run would have had fails with the message.
    for selection in (["-R", "h2d-pinned-mutate/"], ["-R", "h2d-pinned-mutate/stream-synchronize$"],
                      ["-R", "^nogpu/perf/"], ["-R", "race-window"], ["-L", "sweep"], ["-L", "hazard:h2d-pinned-mutate"]):
        rc, out = world.ctest(*selection, extra_env={"HAZARDLAB_SANITIZE": "garbage"})
        check(rc != 0 and "HAZARDLAB_SANITIZE='garbage'" in out and "No tests were found" not in out,
              f"ctest {' '.join(selection)} with a bad setting exited {rc}:\n{out}")
    # An unknown name is a warning, recorded in the run.
    rc, out = world.ctest("-R", "h2d-pinned-mutate/", extra_env={"HAZARDLAB_TRAILS": "3"})
    check(rc == 0 and "did you mean HAZARDLAB_TRIALS" in " ".join(out.split()), "ctest with a misspelt setting:\n" + out)
    record = world.run_record(world.run_ids()[-1])
    check(any("HAZARDLAB_TRAILS" in w for w in record["warnings"]), f"warnings: {record['warnings']}")


def warm_workers_seen(out):
    """(worker pid, its case number) for every case of a verbose ctest log."""
    seen = []
    for line in out.splitlines():
        if "== in the warm worker process" in line:
            words = line.replace(",", "").split()
            seen.append((int(words[words.index("process") + 1]), int(words[-1])))
    return seen


def process_exists(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@scenario
def cases_share_a_warm_worker_that_leaves_with_ctest(world):
    """ctest's cases run in one warm worker per GPU, which ends with the ctest that started it;
    HAZARDLAB_FRESH_PROCESSES=1 gives every case its own process again."""
    cases = registered_case_count(world)
    rc, out = world.run([world.args.ctest, "--test-dir", world.ctest_dir, "-j4", "-V"])
    check(rc == 0, out)
    seen = warm_workers_seen(out)
    check(len(seen) == cases, f"{len(seen)} of {cases} cases say they ran in a warm worker")
    workers = {pid for pid, _ in seen}
    # A skipped case keeps the worker: one process took every case, one after another.
    check(len(workers) == 1, f"workers: {workers}")
    check(sorted(n for _, n in seen) == list(range(1, cases + 1)), f"case numbers: {sorted(n for _, n in seen)}")
    deadline = time.time() + 10
    while any(process_exists(p) for p in workers) and time.time() < deadline:
        time.sleep(0.1)
    check(not any(process_exists(p) for p in workers), "the warm worker outlived its ctest by 10 s")
    record = world.run_record(world.run_ids()[-1])
    check(record["complete"], f"the warm run is not complete: {record}")

    rc, out = world.run([world.args.ctest, "--test-dir", world.ctest_dir, "-j4", "-V"],
                        {"HAZARDLAB_FRESH_PROCESSES": "1"})
    check(rc == 0 and not warm_workers_seen(out), "HAZARDLAB_FRESH_PROCESSES=1 still used a warm worker:\n" + out)
    record = world.run_record(world.run_ids()[-1])
    check(record["complete"], f"the fresh-process run is not complete: {record}")
    settings = {s["name"]: s for s in record["settings"]}
    check(settings["HAZARDLAB_FRESH_PROCESSES"]["value"] == "1", f"recorded: {settings['HAZARDLAB_FRESH_PROCESSES']}")


STANDIN_CASES = """
# The stand-in worker's cases, beside the real registration (whose variables this file shares).
foreach(variant IN ITEMS unsafe-mutate-after-call stream-synchronize)
  add_test(nogpu/standin/${variant} "STANDIN" h2d-pinned-mutate ${variant})
  set_tests_properties(nogpu/standin/${variant} PROPERTIES LABELS standin ENVIRONMENT "${environment}"
                       FIXTURES_REQUIRED hazardlab_session RESOURCE_LOCK nogpu SKIP_RETURN_CODE 77)
endforeach()
# The case that dies first, so that the other one shows the next worker.
set_tests_properties(nogpu/standin/stream-synchronize PROPERTIES DEPENDS nogpu/standin/unsafe-mutate-after-call)
"""


@scenario
def worker_dying_mid_case_fails_it(world):
    """A warm worker killed in the middle of a case fails that case: its ctest line, the exit status and the
    run's report all say so, not only the crash marker; the next case gets a new worker."""
    dies = "unsafe-mutate-after-call"
    testfile = world.ctest_dir / "CTestTestfile.cmake"
    testfile.write_text(testfile.read_text() + STANDIN_CASES.replace("STANDIN", str(world.args.standin_worker)))
    rc, out = world.run([world.args.ctest, "--test-dir", world.ctest_dir, "-j4", "-V", "-L", "standin"],
                        {"STANDIN_DIES_IN": dies})
    check(rc != 0, f"ctest exited {rc} although a worker died mid-case:\n{out}")
    lines = [line for line in out.splitlines() if "Test #" in line and "nogpu/standin/" in line]
    check(any(f"nogpu/standin/{dies}" in line and "***Failed" in line for line in lines),
          f"the killed case's ctest line does not say Failed: {lines}\n{out}")
    check(any("nogpu/standin/stream-synchronize" in line and "Skipped" in line for line in lines),
          f"the other case did not run as usual: {lines}")
    check("the worker process running this case died: killed by signal 9" in out, "no word of the death:\n" + out)
    workers = set(re.findall(r"== in the stand-in worker process (\d+):", out))
    check(len(workers) == 2, f"the case after the death did not get a new worker: {workers}")

    record = world.run_record(world.run_ids()[-1])
    check(not record["complete"], f"a run of two cases is recorded complete: {record}")
    report = json.loads((world.reports / "runs" / record["id"] / "nogpu.json").read_text())
    jsonschema.validate(report, world.report_schema)
    check(report["verdict"] == "FAIL", f"the report's verdict is {report['verdict']}: {report['verdict_reason']}")
    results = [v for h in report["hazards"] for v in h["variants"]
               if h["id"] == "h2d-pinned-mutate" and v["variant"] == dies]
    check(len(results) == 1 and results[0]["outcome"] == "failed"
          and "ended before writing its result" in results[0].get("reason", ""), f"the report shows {results}")

    # Outside ctest, the same case's exit status is 1 and its stderr says why.
    rc, out = world.run([world.args.standin_worker, "h2d-pinned-mutate", dies], {"STANDIN_DIES_IN": dies})
    check(rc == 1 and "killed by signal 9" in out, f"the stand-in exited {rc}:\n{out}")


def install_into(world, prefix):
    rc, out = world.run([world.args.cmake, "--install", world.args.build_dir, "--prefix", prefix])
    check(rc == 0, out)
    return prefix


@scenario
def installed_suite_runs_outside_any_tree(world):
    """`cmake --install` into a temporary prefix; `hazardlab run` from there, in a folder outside
    the source and build trees, runs every case and writes a complete run and its reports."""
    prefix = install_into(world, world.root / "prefix")
    for program in ("bin/hazardlab", "bin/hazardlab-report", "libexec/hazardlab/hazardlab-cases",
                    "libexec/hazardlab/hazardlab-perf", "libexec/hazardlab/libhazardlab-check-inject.so",
                    "libexec/hazardlab/libhazardlab-check-threads.so", "libexec/hazardlab/libhazardlab-check-signals.so",
                    "share/doc/hazardlab/slurm/hazardlab-fleet.sbatch",
                    "share/hazardlab/schema/gpu-report.schema.json",
                    "share/hazardlab/schema/check-report.schema.json"):
        check((prefix / program).exists(), f"the install lacks {program}")
    # The installed documents keep their places relative to each other: every link works installed too.
    docs = prefix / "share/doc/hazardlab"
    p = subprocess.run([sys.executable, str(pathlib.Path(world.args.source_dir) / "cases/lint/test_doc_links.py"),
                        str(docs)], text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    check(p.returncode == 0, "links of the installed documents:\n" + p.stdout)
    check((docs / "docs/settings.md").exists() and (docs / "checker/README.md").exists(),
          "the installed documents lack docs/ or checker/README.md")
    # The installed checker finds its library; a program that never starts CUDA is never called clean.
    p = subprocess.run([str(prefix / "bin/hazardlab"), "check", "--", "/bin/true"], timeout=60, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    check(p.returncode == 67 and "NOT CHECKED" in p.stdout, f"hazardlab check -- /bin/true: {p.returncode}\n{p.stdout}")
    elsewhere = world.root / "node"
    elsewhere.mkdir()
    env = {"HAZARDLAB_RESULTS_ROOT": "", "HAZARDLAB_REPORTS_DIR": ""}
    command = [prefix / "bin/hazardlab", "run"]
    p = subprocess.run([str(c) for c in command], cwd=elsewhere, timeout=600, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, env={k: v for k, v in world.env.items() if k not in env})
    check(p.returncode == 0, p.stdout)
    cases = registered_case_count(world)
    check(f"/{cases + 3} nogpu/perf/findings" in p.stdout or f"{cases + 3}/{cases + 3}" in p.stdout,
          "not every case and measurement ran:\n" + p.stdout)
    runs = list((elsewhere / "hazardlab-results" / "runs").iterdir())
    check(len(runs) == 1, f"run folders: {runs}")
    record = json.loads((runs[0] / "run.json").read_text())
    jsonschema.validate(record, world.run_schema)
    check(record["complete"] and record["selection"]["all"], f"the installed run is not complete: {record}")
    report = json.loads((elsewhere / "hazardlab-reports" / "current" / "nogpu.json").read_text())
    jsonschema.validate(report, world.report_schema)
    check(report["verdict"] == "SKIPPED", f"verdict without a GPU: {report['verdict']}")
    logs = list((runs[0] / "logs" / "nogpu").glob("*.log"))
    check(len(logs) == cases + 3, f"{len(logs)} case logs for {cases} cases and 3 measurements")
    # Required to have a GPU, the same run fails loudly.
    p = subprocess.run([str(prefix / "bin/hazardlab"), "run"], cwd=elsewhere, timeout=600, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env={**{k: v for k, v in world.env.items() if k not in env}, "HAZARDLAB_REQUIRE_GPU": "1"})
    check(p.returncode != 0, "HAZARDLAB_REQUIRE_GPU=1 without a GPU exited 0:\n" + p.stdout)


@scenario
def debian_package_needs_only_the_driver(world):
    """cpack -G DEB builds a package whose programs need nothing but libc and the driver."""
    cpack = pathlib.Path(world.args.cmake).with_name("cpack")
    folder = world.root / "package"
    folder.mkdir()
    rc, out = world.run([cpack, "-G", "DEB", "--config", pathlib.Path(world.args.build_dir) / "CPackConfig.cmake"],
                        cwd=folder, timeout=900)
    check(rc == 0, out)
    debs = list(folder.glob("hazardlab_*.deb"))
    check(len(debs) == 1, f"packages: {debs}\n{out}")
    fields = subprocess.run(["dpkg-deb", "-f", str(debs[0])], text=True, stdout=subprocess.PIPE).stdout
    check("Depends:" not in fields.replace("Recommends:", ""), "the package depends on something:\n" + fields)
    check("Recommends: libcuda1 |" in fields, "the package does not name the driver:\n" + fields)
    unpacked = world.root / "unpacked"
    subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(unpacked)], check=True)
    programs = [p for p in unpacked.rglob("*") if p.is_file() and os.access(p, os.X_OK) and "/bin/" in str(p)
                or "/libexec/" in str(p) and p.is_file()]
    check(len(programs) >= 4, f"programs in the package: {programs}")
    for program in programs:
        if program.name.startswith("libcupti.so"):
            continue  # NVIDIA's CUPTI, shipped beside the library `hazardlab check` injects
        allowed = {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"}
        if program.name.startswith("libhazardlab-check-inject"):
            # Loaded by CUDA itself into a program that uses the driver; CUPTI comes in the package.
            allowed |= {"libcuda.so.1"} | {f.name for f in program.parent.glob("libcupti.so*")}
        needed = subprocess.run(["objdump", "-p", str(program)], text=True, stdout=subprocess.PIPE).stdout
        libraries = sorted(line.split()[1] for line in needed.splitlines() if line.strip().startswith("NEEDED"))
        check(set(libraries) <= allowed, f"{program} needs {libraries}: more than {sorted(allowed)}")
    print(fields.strip())


FAKE_SRUN = """#!/usr/bin/env bash
# A stand-in for srun: the command once per simulated node, all at once, as one task per node.
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do shift; done
pids=()
for node in $SIMULATED_NODES; do SLURMD_NODENAME=$node "$@" & pids+=($!); done
status=0
for p in "${pids[@]}"; do wait $p || status=1; done
exit $status
"""


@scenario
def slurm_script_on_simulated_hosts(world):
    """The installed Slurm script, with a stand-in srun that starts three nodes at once on this
    machine: each leaves its run folder under its own name, and the merge has a row for each."""
    prefix = install_into(world, world.root / "prefix")
    fake = world.root / "fakebin"
    fake.mkdir()
    (fake / "srun").write_text(FAKE_SRUN)
    (fake / "srun").chmod(0o755)
    shared = world.root / "shared"
    nodes = ["sim-a", "sim-b", "sim-c"]
    env = {k: v for k, v in world.env.items() if k not in ("HAZARDLAB_RESULTS_ROOT", "HAZARDLAB_REPORTS_DIR")}
    env.update(PATH=f"{fake}:{env['PATH']}", SLURM_JOB_ID="4242", SIMULATED_NODES=" ".join(nodes),
               HAZARDLAB_BIN=str(prefix / "bin/hazardlab"))
    script = prefix / "share/doc/hazardlab/slurm/hazardlab-fleet.sbatch"
    p = subprocess.run(["bash", str(script), str(shared)], cwd=world.root, env=env, timeout=600, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    # No GPU here: every row is SKIPPED, which a fleet does not count as passed.
    check(p.returncode == 1, f"the fleet job exited {p.returncode}, not 1 (no GPU is not a pass):\n{p.stdout}")
    job = shared / "4242"
    for node in nodes:
        runs = list((job / "nodes" / node / "results" / "runs").iterdir())
        check(len(runs) == 1, f"{node}: run folders {runs}\n{p.stdout}")
        record = json.loads((runs[0] / "run.json").read_text())
        check(record["host"] == node and record["complete"], f"{node}: {record['host']}, complete {record['complete']}")
    fleet = json.loads((job / "fleet" / "fleet.json").read_text())
    jsonschema.validate(fleet, json.loads((pathlib.Path(world.args.source_dir) /
                                           "reports/schema/fleet-report.schema.json").read_text()))
    with open(job / "fleet" / "fleet.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    host_column = next(c for c in rows[0] if c.lower() == "host")
    check(sorted(r[host_column] for r in rows) == nodes, f"fleet rows: {rows}")
    html.parser.HTMLParser().feed((job / "fleet" / "fleet.html").read_text())


@scenario
def a_run_folder_reports_anywhere(world):
    """A run folder copied off its node is reported, with no build tree and no GPU, by hazardlab-report."""
    rc, out = world.ctest()
    check(rc == 0, out)
    run_id = world.run_ids()[-1]
    elsewhere = world.root / "copied" / run_id
    shutil.copytree(world.results / "runs" / run_id, elsewhere)
    rc, out = world.run([world.args.report_tool, "--run", elsewhere, "--out", world.root / "elsewhere-reports"])
    check(rc == 0, out)
    original = json.loads((world.reports / "current" / "nogpu.json").read_text())
    copy = json.loads((world.root / "elsewhere-reports" / "current" / "nogpu.json").read_text())
    for key in ("verdict", "totals", "device", "no_device_reason"):
        check(original[key] == copy[key], f"{key} differs: {original[key]} against {copy[key]}")
    check(copy["run"]["id"] == run_id, "the copy reports another run")


def compile_settings_like(build_dir):
    """How the CUDA-free tree is compiled. Where the full build compiles through ccache and ccache hashes paths as
    they are (no base folder, as in CI), with ccache and the full build's own type and flags: nearly every file the
    two trees share is then the very command the full build ran, and comes from the cache. Otherwise unoptimized and
    without debug information, which compiles fastest: this tree is built to show it builds and passes with no
    CUDA. (A cache with a base folder hashes paths relative to the build folder, which differs here: no hits.)"""
    cache = {}
    for line in (pathlib.Path(build_dir) / "CMakeCache.txt").read_text().splitlines():
        entry = re.match(r"([A-Za-z0-9_]+):[A-Z]+=(.*)$", line)
        if entry:
            cache[entry.group(1)] = entry.group(2)
    launcher = cache.get("CMAKE_CXX_COMPILER_LAUNCHER", "")
    if pathlib.Path(launcher).name != "ccache" or os.environ.get("CCACHE_BASEDIR"):
        return ["-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_CXX_FLAGS_DEBUG=-O0"]
    build_type = cache.get("CMAKE_BUILD_TYPE") or "Debug"
    flags = f"CMAKE_CXX_FLAGS_{build_type.upper()}"
    launchers = [f"-D{name}={cache[name]}" for name in ("CMAKE_CXX_COMPILER_LAUNCHER", "CMAKE_C_COMPILER_LAUNCHER")
                 if cache.get(name)]
    return [f"-DCMAKE_BUILD_TYPE={build_type}", f"-D{flags}={cache.get(flags, '')}",
            f"-DCMAKE_CXX_FLAGS={cache.get('CMAKE_CXX_FLAGS', '')}", *launchers]


@scenario
def record_and_reports_build_without_cuda(world):
    """The record and report layers configure, build and pass their self-tests with no CUDA at all."""
    build = world.root / "cpu-only"
    configure = [world.args.cmake, "-S", world.args.source_dir, "-B", build, "-G", "Ninja",
                 "-DHAZARDLAB_WITH_CUDA=OFF", *compile_settings_like(world.args.build_dir),
                 "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                 f"-DCMAKE_PREFIX_PATH={pathlib.Path(world.args.source_dir) / '.deps'}"]
    for command in (configure, [world.args.cmake, "--build", build, "-j2"]):
        rc, out = world.run(command, timeout=900)
        check(rc == 0, out)
    cache = (build / "CMakeCache.txt").read_text()
    check("CMAKE_CUDA_COMPILER:" not in cache, "the CUDA-free build enabled CUDA")
    for entry in json.loads((build / "compile_commands.json").read_text()):
        check("cuda" not in entry["command"].lower(), "a compile command names CUDA: " + entry["command"])
    rc, out = world.run([world.args.ctest, "--test-dir", build, "--output-on-failure", "-j2"])
    check(rc == 0 and "tests passed" in out, out)
    print(out.strip().splitlines()[-3])


FLEET_COLUMNS = ["host", "pci_bus_id", "uuid", "nvidia_smi_index", "cuda_index", "name", "driver_release", "verdict",
                 "failing_checks", "failing_cases", "pinned_h2d_gbps", "pinned_d2h_gbps", "controls_reproduced",
                 "controls_run", "run_id", "run_started_at", "partial", "stale", "outlier", "outlier_reason",
                 "superseded_runs", "newer_partial_runs", "no_device_reason", "profile"]


class StrictPage(html.parser.HTMLParser):
    """Reads a page and collects what would make it not self-contained or not well formed."""
    VOID = {"meta", "br", "hr", "img", "input", "link"}

    def __init__(self):
        super().__init__()
        self.open, self.problems = [], []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed", "link", "img"):
            self.problems.append(f"<{tag}> loads or runs something")
        self.problems += [f"<{tag} {name}=...> points elsewhere" for name, _ in attrs if name in ("src", "href")]
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.open[-1:] or 'nothing'}")
        else:
            self.open.pop()


def run_as_host(world, run_id, host, into, days_back=0):
    """A copy of a run folder as if `host` had run it. hazardlab records gethostname() with no
    override, so another host is simulated by editing the copy's run record (and its id, which names the host)."""
    record = world.run_record(run_id)
    started = datetime.strptime(record["started_at"], "%Y-%m-%dT%H:%M:%SZ") - timedelta(days=days_back)
    record.update(host=host, started_at=started.strftime("%Y-%m-%dT%H:%M:%SZ"),
                  id=f"{started:%Y%m%dT%H%M%SZ}-{host}-{record['pid']}")
    jsonschema.validate(record, world.run_schema)
    folder = into / host / record["id"]
    shutil.copytree(world.results / "runs" / run_id, folder)
    (folder / "run.json").write_text(json.dumps(record, indent=2) + "\n")
    return folder


@scenario
def merge_runs_of_three_hosts(world):
    """Three hosts' run folders merged by `hazardlab-report merge`: a row per host (no GPU here), the latest
    complete run shown, partial and stale runs flagged, every file readable; bad input exits 2 naming the path."""
    rc, out = world.ctest()
    check(rc == 0, "the full run failed:\n" + out)
    full = world.run_ids()[-1]
    time.sleep(1.1)
    rc, out = world.ctest("-R", "h2d-pinned-mutate/unsafe")
    check(rc == 0, "the one-case run failed:\n" + out)
    lab = world.run_ids()[-1]
    into = world.root / "copied"
    runs = [run_as_host(world, full, "node-a", into), run_as_host(world, lab, "node-a", into),
            run_as_host(world, lab, "node-b", into), run_as_host(world, full, "node-c", into, days_back=30)]
    fleet = world.root / "fleet"
    rc, out = world.run([world.args.report_tool, "merge", "--out", fleet, *runs])
    check(rc == 1, f"merge exited {rc}, not 1 (no GPU: every row SKIPPED):\n{out}")
    for says in ("node-a/nogpu", "node-b/nogpu", "node-c/nogpu", "SKIPPED", "stale", "partial",
                 "wrote " + str(fleet / "fleet.csv")):
        check(says in out, f"merge does not say '{says}':\n{out}")

    schema = json.loads((pathlib.Path(world.args.source_dir) / "reports/schema/fleet-report.schema.json").read_text())
    report = json.loads((fleet / "fleet.json").read_text())
    jsonschema.validate(report, schema)
    check(report["counts"]["SKIPPED"] == 3 and report["exit_status"] == 1, f"counts: {report['counts']}")
    rows = {row["key"]: row for row in report["rows"]}
    check(sorted(rows) == ["node-a/nogpu", "node-b/nogpu", "node-c/nogpu"], f"rows: {sorted(rows)}")
    a, b, c = rows["node-a/nogpu"], rows["node-b/nogpu"], rows["node-c/nogpu"]
    check(a["run"]["id"] == runs[0].name and a["superseded_runs"] == 1 and not a["partial"] and not a["stale"],
          f"node-a shows {a['run']['id']} (superseded {a['superseded_runs']}), not its complete run")
    check([p["run_id"] for p in a["newer_partial_runs"]] == [runs[1].name], f"node-a: {a['newer_partial_runs']}")
    check(b["partial"] and b["verdict"] == "SKIPPED" and b["superseded_runs"] == 0, f"node-b: {b}")
    check(c["stale"] and "days before the newest run" in c["stale_reason"], f"node-c: {c}")
    check(all(r["no_device_reason"] and not r["has_gpu"] for r in rows.values()), "a no-GPU row does not say why")

    with open(fleet / "fleet.csv", newline="") as f:
        table = list(csv.reader(f))
    check(table[0] == FLEET_COLUMNS, f"CSV columns: {table[0]}")
    records = [dict(zip(table[0], r)) for r in table[1:]]
    check(all(len(r) == len(FLEET_COLUMNS) for r in table[1:]), "a CSV row has the wrong number of fields")
    check([(r["host"], r["verdict"], r["partial"], r["stale"]) for r in records] ==
          [("node-a", "SKIPPED", "false", "false"), ("node-b", "SKIPPED", "true", "false"),
           ("node-c", "SKIPPED", "false", "true")], f"CSV rows: {records}")
    check(records[0]["run_id"] == runs[0].name and records[0]["superseded_runs"] == "1", f"CSV: {records[0]}")

    page = StrictPage()
    page.feed((fleet / "fleet.html").read_text())
    page.close()
    check(not page.problems and not page.open, f"fleet.html: {page.problems}, left open: {page.open}")
    check("SKIPPED 3" in (fleet / "fleet.md").read_text(), "fleet.md has no headline counts")

    # Merging again into its own folder is fine; bad input is refused with exit 2, naming the path.
    rc, out = world.run([world.args.report_tool, "merge", "--out", fleet, *runs])
    check(rc == 1, f"a second merge into the fleet folder exited {rc}:\n{out}")
    not_a_run = world.root / "not-a-run"
    not_a_run.mkdir()
    foreign = world.root / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    merge = [world.args.report_tool, "merge", "--out"]
    for command, says in [(merge + [world.root / "out1", runs[0], world.root / "missing"],
                           [str(world.root / "missing"), "does not exist"]),
                          (merge + [world.root / "out2", not_a_run], [str(not_a_run), "run.json"]),
                          (merge + [foreign, runs[0]], [str(foreign), "notes.txt"]),
                          (merge + [world.root / "out3"], ["runs"]),
                          (merge + [world.root / "out4", "--outlier-mads", "-1", runs[0]], ["--outlier-mads"])]:
        rc, out = world.run(command)
        check(rc == 2, f"`{' '.join(map(str, command[1:]))}` exited {rc}, not 2:\n{out}")
        for text in says:
            check(text in out, f"`{' '.join(map(str, command[1:]))}` does not say '{text}':\n{out}")
    check(not any((world.root / f"out{i}").exists() for i in range(1, 5)), "a refused merge wrote a folder")
    check([p.name for p in foreign.iterdir()] == ["notes.txt"], "the foreign folder was written into")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", nargs="?")
    parser.add_argument("--list", action="store_true")
    for option in ("source-dir", "build-dir", "register-script", "tool", "report-tool", "cases", "perf", "ctest",
                   "cmake", "standin-worker"):
        parser.add_argument("--" + option)
    args = parser.parse_args()
    if args.list:
        print("\n".join(SCENARIOS))
        return 0
    if args.scenario not in SCENARIOS:
        print(f"no scenario '{args.scenario}'; --list lists them", file=sys.stderr)
        return 2
    world = World(args)
    try:
        SCENARIOS[args.scenario](world)
    except Failure as failure:
        print(f"FAILED: {failure}\n(scratch folder kept: {world.root})")
        return 1
    shutil.rmtree(world.root, ignore_errors=True)
    print(f"PASSED: {SCENARIOS[args.scenario].__doc__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
