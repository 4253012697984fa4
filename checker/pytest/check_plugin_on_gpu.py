"""`pytest --hazardlab` on a GPU, on checker/pytest/example/test_copies.py: only the racy test fails, with the
finding in pytest's failure report; the JUnit file and the SARIF file name the racy line; the DataLoader's worker
processes run under the checker and nothing is found in them. Exit 77 (skipped) without a GPU or PyTorch.

Usage: check_plugin_on_gpu.py HAZARDLAB WORK_FOLDER
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "example", "test_copies.py")


def racy_line():
    with open(EXAMPLE) as f:
        for number, text in enumerate(f, 1):
            if "pinned.fill_(2)  # the next batch" in text:
                return number
    raise SystemExit("the racy line is not in the example")


def main(hazardlab, work):
    probe = subprocess.run([sys.executable, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)"],
                           capture_output=True)
    if probe.returncode != 0:
        print("skipped: no GPU, or no PyTorch, in this Python")
        return 77
    os.makedirs(work, exist_ok=True)
    junit, sarif, report = (os.path.join(work, n) for n in ("junit.xml", "findings.sarif", "check.json"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    env.pop("HL_CHECK_LOG_FOLDER", None)
    command = [sys.executable, "-m", "pytest", "-p", "hazardlab_pytest", "-p", "no:cacheprovider", "--hazardlab",
               f"--hazardlab-program={hazardlab}", f"--hazardlab-sarif={sarif}", f"--hazardlab-json={report}",
               f"--junitxml={junit}", "-rA", EXAMPLE]
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, env=env, cwd=work, capture_output=True, text=True, timeout=600)
    print(done.stdout[-6000:])
    print(done.stderr[-4000:])
    print(f"exit status {done.returncode}")
    problems = []
    line = racy_line()
    outcomes = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        bad = [c for c in case if c.tag in ("failure", "error")]
        outcomes[case.get("name")] = (bad[0].tag, (bad[0].get("message") or "") + (bad[0].text or "")) if bad else (
            "passed", "")
    print("JUnit:", {name: kind for name, (kind, _) in outcomes.items()})
    kind, text = outcomes.get("test_racy_staging", ("missing", ""))
    if kind != "failure" or "h2d-pinned-mutate" not in text or f"test_copies.py:{line} in test_racy_staging" not in text:
        problems.append(f"the racy test's JUnit failure does not name h2d-pinned-mutate at test_copies.py:{line}")
    for clean in ("test_staging_with_the_fix", "test_dataloader_with_workers"):
        if outcomes.get(clean, ("missing",))[0] != "passed":
            problems.append(f"{clean} did not pass: {outcomes.get(clean)}")
    with open(sarif) as f:
        results = json.load(f)["runs"][0]["results"]
    places = []
    for r in results:
        where = r["locations"][0].get("physicalLocation", {})
        places.append((r["ruleId"], where.get("artifactLocation", {}).get("uri", ""),
                       where.get("region", {}).get("startLine", 0)))
    print("SARIF results:", places)
    if not any(uri.endswith("test_copies.py") and start == line for _, uri, start in places):
        problems.append(f"no SARIF result at test_copies.py:{line}")
    with open(report) as f:
        checked = json.load(f)
    workers = [p for p in checked["processes"] if p["parent"] != 0 and p["pid"] != checked["processes"][0]["pid"]]
    print(f"report: verdict {checked['verdict']}, {checked['findings']} finding(s), {len(checked['processes'])} "
          f"process(es) watched ({len(workers)} besides the session's own)")
    if checked["verdict"] != "found" or checked["findings"] != 1:
        problems.append("the session's report is not 'found' with exactly the one finding")
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write("usage: check_plugin_on_gpu.py HAZARDLAB WORK_FOLDER\n")
        sys.exit(2)
    sys.exit(main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])))
