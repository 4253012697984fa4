#!/usr/bin/env python3
"""The health profile and the metrics file as a node runs them: `hazardlab run --profile health`
and `HAZARDLAB_PROFILE=health ctest`, with GPUs hidden (CUDA_VISIBLE_DEVICES=-1), so that they run
the same on any machine. The run record and reports are checked against the shipped JSON Schemas,
the metrics file with the Python client's parser of the exposition format.

    test_node_health.py --list
    test_node_health.py <scenario> --source-dir S --build-dir B --register-script R --tool T ...
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

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
    def __init__(self, args):
        self.args = args
        self.root = pathlib.Path(tempfile.mkdtemp(prefix="hazardlab-health-"))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("HAZARDLAB_")}
        self.env.update(CUDA_VISIBLE_DEVICES="-1")
        source = pathlib.Path(args.source_dir)
        self.run_schema = json.loads((source / "record/schema/run-record.schema.json").read_text())
        self.report_schema = json.loads((source / "reports/schema/gpu-report.schema.json").read_text())

    def run(self, command, extra_env=None, timeout=600):
        p = subprocess.run([str(c) for c in command], env={**self.env, **(extra_env or {})}, cwd=self.root,
                           timeout=timeout, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return p.returncode, p.stdout


def health_cases(world):
    """The health profile's cases from `hazardlab list`: every control, and each hazard's first guard
    (or, without one, its first rule)."""
    rc, out = world.run([world.args.tool, "list"])
    check(rc == 0, out)
    hazards = {}
    for line in out.splitlines():
        if not line.startswith("  "):
            hazard = line.split(":")[0]
            hazards[hazard] = []
        else:
            hazards[hazard].append((line.split()[0], line.split("(")[1].split(")")[0]))
    chosen = []
    for hazard, variants in hazards.items():
        chosen += [f"{hazard}/{v}" for v, k in variants if k == "control"]
        judged = [v for v, k in variants if k == "guard"] or [v for v, k in variants if k == "rule"]
        if judged:
            chosen.append(f"{hazard}/{judged[0]}")
    return sorted(chosen)


def parse_metrics(path):
    """Every sample of the file through the Python client's parser (python3-prometheus-client)."""
    for python in ("/usr/bin/python3", sys.executable):
        p = subprocess.run([python, "-c", "import prometheus_client"], capture_output=True)
        if p.returncode == 0:
            break
    else:
        raise Failure("no python3 with prometheus_client (Debian: python3-prometheus-client)")
    parser = pathlib.Path(__file__).parent.parent.parent / "reports" / "tests" / "parse_prometheus.py"
    p = subprocess.run([python, str(parser), str(path)], capture_output=True, text=True)
    check(p.returncode == 0, f"the metrics do not parse: {p.stderr}\n{path.read_text()}")
    return p.stdout.splitlines()


@scenario
def health_profile_without_a_gpu_fails_with_one_line(world):
    """`hazardlab run --profile health` runs the profile's cases, is complete with them, fails without
    a GPU (a GPU node without GPUs must be drained), ends with the node's line and writes the metrics."""
    textfile = world.root / "textfile"
    textfile.mkdir()
    rc, out = world.run([world.args.tool, "run", "--profile", "health", "--results-root", world.root / "results",
                         "--reports-dir", world.root / "reports", "--prometheus", textfile])
    check(rc == 1, f"exit {rc} without a GPU, not 1:\n{out}")
    last = out.strip().splitlines()[-1]
    check(last.startswith("hazardlab: FAIL: no usable GPU: "), f"the last line: {last}")
    runs = list((world.root / "results" / "runs").iterdir())
    record = json.loads((runs[0] / "run.json").read_text())
    jsonschema.validate(record, world.run_schema)
    check(record["profile"] == "health" and record["complete"], f"profile {record['profile']}, complete "
          f"{record['complete']}, not run {record['not_run'][:5]}")
    cases = sorted(r.split("/", 1)[1] for r in record["registered"] if "/perf/" not in r)
    check(cases == health_cases(world), f"registered {cases}\nexpected {health_cases(world)}")
    parts = sorted(r for r in record["registered"] if "/perf/" in r)
    check(parts == ["nogpu/perf/bandwidth", "nogpu/perf/integrity"], f"measurements {parts}")
    settings = {s["name"]: s for s in record["settings"]}
    check(settings["HAZARDLAB_TRIALS"]["value"] == "20" and settings["HAZARDLAB_TRIALS"].get("note") == "health profile",
          f"HAZARDLAB_TRIALS recorded as {settings['HAZARDLAB_TRIALS']}")
    report = json.loads((world.root / "reports" / "current" / "nogpu.json").read_text())
    jsonschema.validate(report, world.report_schema)
    check(report["verdict"] == "FAIL" and report["run"]["complete"], f"{report['verdict']}: {report['verdict_reason']}")
    samples = parse_metrics(textfile / "hazardlab.prom")
    check(any(s.startswith("hazardlab_gpu_verdict Hostname=") and "verdict=FAIL 1" in s for s in samples),
          "\n".join(samples))
    check(any(s.startswith("hazardlab_run_complete ") and "profile=health" in s and s.endswith(" 1") for s in samples),
          "\n".join(samples))
    # Told that no GPU is no failure here, the same run is SKIPPED and exits 0.
    rc, out = world.run([world.args.tool, "run", "--profile", "health", "--results-root", world.root / "results",
                         "--reports-dir", world.root / "reports"], {"HAZARDLAB_REQUIRE_GPU": "0"})
    check(rc == 0 and out.strip().splitlines()[-1].startswith("hazardlab: SKIPPED: no usable GPU"), out)


@scenario
def health_profile_under_ctest_registers_only_its_cases(world):
    """HAZARDLAB_PROFILE=health under ctest registers the profile's cases and measurements, and the
    report step writes the metrics where HAZARDLAB_PROMETHEUS_DIR says."""
    ctest_dir = world.root / "ctest"
    ctest_dir.mkdir()
    (ctest_dir / "CTestTestfile.cmake").write_text(f'include("{world.args.register_script}")\n')
    textfile = world.root / "textfile"
    textfile.mkdir()
    env = {"HAZARDLAB_PROFILE": "health", "HAZARDLAB_RESULTS_ROOT": str(world.root / "results"),
           "HAZARDLAB_REPORTS_DIR": str(world.root / "reports"), "HAZARDLAB_PROMETHEUS_DIR": str(textfile),
           "HAZARDLAB_REQUIRE_GPU": "0"}
    rc, listed = world.run([world.args.ctest, "--test-dir", ctest_dir, "-N"], env)
    names = [m.group(1) for m in re.finditer(r"^\s*Test\s+#\d+: (\S+)", listed, re.MULTILINE)]
    cases = sorted(n.split("/", 1)[1] for n in names if n.startswith("nogpu/") and "/perf/" not in n)
    check(cases == health_cases(world), f"ctest registered {cases}")
    check(sorted(n for n in names if "/perf/" in n) == ["nogpu/perf/bandwidth", "nogpu/perf/integrity"], listed)
    rc, out = world.run([world.args.ctest, "--test-dir", ctest_dir, "-j4"], env)
    check(rc == 0, f"ctest exited {rc}:\n{out}")
    check((textfile / "hazardlab.prom").exists(), "the report step wrote no metrics")
    parse_metrics(textfile / "hazardlab.prom")


@scenario
def bad_profile_duration_and_metrics_folder_exit_2(world):
    """A bad --profile, --duration or --prometheus is named with what is allowed, exit 2, before any
    run starts."""
    results = world.root / "results"
    for args, words in ((["--profile", "healthy"], "--profile='healthy': expected a run profile"),
                        (["--profile", "soak", "--duration", "10x"], "--duration='10x': expected a duration"),
                        (["--prometheus", world.root / "missing"], "is not a folder")):
        rc, out = world.run([world.args.tool, "run", "--results-root", results, *args])
        check(rc == 2 and words in out, f"{args}: exit {rc}\n{out}")
    rc, out = world.run([world.args.tool, "settings"], {"HAZARDLAB_SOAK_DURATION": "0s"})
    check(rc == 2 and "HAZARDLAB_SOAK_DURATION='0s'" in out, out)
    check(not results.exists(), "a refused run made its results root")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", nargs="?")
    parser.add_argument("--list", action="store_true")
    for option in ("source-dir", "build-dir", "register-script", "tool", "report-tool", "cases", "perf", "ctest",
                   "cmake"):
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
