#!/usr/bin/env python3
"""Bad input and failed writes, as a user meets them, on the real tools: names and folders are
checked when read, every output place before the first case, and a failed write is a failure
that names the file, never an abort and never "not run".

    test_nothing_lost.py --list
    test_nothing_lost.py <scenario> --source-dir S --build-dir B --register-script R --tool T ...
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import test_runs  # noqa: E402
from test_runs import check, tree_digest  # noqa: E402

test_runs.SCENARIOS.clear()
scenario = test_runs.scenario


def first_case(world):
    rc, out = world.run([world.args.tool, "list"])
    check(rc == 0, out)
    lines = out.splitlines()
    hazard = next(line.split(":")[0] for line in lines if not line.startswith(" "))
    variant = next(line.split()[0] for line in lines if line.startswith("  "))
    return hazard, variant


def start_run(world, run_id):
    rc, out = world.run([world.args.tool, "session-start", "--results-root", world.results, "--run-id", run_id,
                         "--owner-pid", os.getpid()])
    check(rc == 0, f"session-start failed:\n{out}")
    # This process owns the run and stays alive: release the lock for later runs of the scenario.
    (world.results / "lock").unlink()
    return world.results / "runs" / run_id


def refused(world, command, says, extra_env=None):
    rc, out = world.run(command, extra_env)
    shown = " ".join(map(str, command[1:]))
    check(rc == 2, f"`{shown}` exited {rc}, not 2:\n{out}")
    for text in says:
        check(text in out, f"`{shown}` does not say '{text}':\n{out}")
    return out


@scenario
def names_and_folders_are_checked_when_read(world):
    """session-start refuses run ids that are not one folder name; blank folders and numbers that are not
    plain decimals are refused with exit 2 and create nothing."""
    start = [world.args.tool, "session-start", "--results-root", world.results]
    refused(world, start + ["--run-id", "../../x", "--owner-pid", os.getpid()], ["--run-id", "../../x"])
    check(not (world.root / "x").exists() and not world.results.exists(), "a refused run id made a folder")
    refused(world, start + ["--run-id", "", "--owner-pid", os.getpid()], ["--run-id"])
    check(not world.results.exists(), "an empty run id made a folder")
    for pid in ["+5", " 5", "0x10", "-1", "5.0"]:
        refused(world, start + ["--run-id", "r1", "--owner-pid", pid], ["--owner-pid"])

    refused(world, [world.args.tool, "run", "--results-root", ""], ["--results-root"])
    refused(world, [world.args.tool, "run", "--reports-dir", " "], ["--reports-dir"])
    refused(world, [world.args.tool, "run"], ["HAZARDLAB_RESULTS_ROOT", "folder"], {"HAZARDLAB_RESULTS_ROOT": " "})
    refused(world, [world.args.tool, "run"], ["HAZARDLAB_REPORTS_DIR"], {"HAZARDLAB_REPORTS_DIR": ""})
    check(sorted(p.name for p in world.root.iterdir()) == ["ctest"], f"a refused run made folders: "
          f"{sorted(p.name for p in world.root.iterdir())}")

    report = [world.args.report_tool]
    refused(world, report + ["--run", "", "--out", world.reports], ["--run"])
    for keep in [" 1", "+1", "0x1", "1e1", "0"]:
        refused(world, report + ["--run", world.results, "--out", world.reports, "--keep", keep], ["--keep"])
    merge = report + ["merge", "--out", world.root / "fleet"]
    for mads in ["0x1p1", " 3", "+3", "1e-400", "nan"]:
        refused(world, merge + ["--outlier-mads", mads, world.results], ["--outlier-mads"])
    for hours in ["+5", "0x10", "5.0", " 5"]:
        refused(world, merge + ["--stale-after-hours", hours, world.results], ["--stale-after-hours"])
    refused(world, merge[:-2] + ["--out", "", world.results], ["--out"])
    for name, text in [("HAZARDLAB_TRIALS", "+100"), ("HAZARDLAB_MIN_LINK_FRACTION", "0x0.8p0"),
                       ("HAZARDLAB_MIN_OVERLAP", "1e-400"), ("HAZARDLAB_PINNED_BUDGET_MB", " 100")]:
        refused(world, [world.args.tool, "list"], [name, text], {name: text})
    check(not (world.root / "fleet").exists(), "a refused merge made its folder")


@scenario
def a_resource_spec_folder_loses_nothing_of_the_users(world):
    """ctest-manifest --resource-spec-dir prunes only the spec files hazardlab wrote (its marker) of ctests that
    have ended, and refuses, before writing anything, a file of this ctest's name that is not its own: a user's
    ctest-<N>.json, a folder of such a name, and a link are left as they are."""
    specs = world.root / "specs"
    specs.mkdir()
    manifest = [world.args.tool, "ctest-manifest", "--default-results-root", world.results, "--default-reports-dir",
                world.reports, "--cases", world.args.cases, "--perf", world.args.perf, "--resource-spec-dir", specs]
    ended = subprocess.Popen(["true"])
    ended.wait()
    (specs / "ctest-999999999.json").write_text("a user's spec\n")
    (specs / f"ctest-{ended.pid}.json").mkdir()
    (specs / "ctest-999999998.json").symlink_to("ctest-999999999.json")
    rc, out = world.run(manifest)
    check(rc == 0, f"ctest-manifest with a spec folder exited {rc}:\n{out}")
    ours = specs / f"ctest-{os.getpid()}.json"
    check(ours.is_file() and '"written_by"' in ours.read_text(), "the spec of this ctest was not written, marked")
    check((specs / "ctest-999999999.json").read_text() == "a user's spec\n", "a user's spec file was pruned")
    check((specs / f"ctest-{ended.pid}.json").is_dir(), "a user's folder of a spec's name was pruned")
    check((specs / "ctest-999999998.json").is_symlink(), "a user's link of a spec's name was pruned")
    # The spec of a ctest that has ended, hazardlab's own, is pruned: the marker proves it.
    (specs / f"ctest-{ended.pid}.json").rmdir()
    shutil.copy(ours, specs / f"ctest-{ended.pid}.json")
    rc, out = world.run(manifest)
    check(rc == 0 and not (specs / f"ctest-{ended.pid}.json").exists(), f"an ended ctest's spec was kept:\n{out}")
    # This ctest's own name, taken by a file of the user's: refused, nothing written over.
    ours.write_text("the user's\n")
    before = tree_digest(specs)
    refused(world, manifest, [str(specs), ours.name, "hazardlab did not write it"])
    check(tree_digest(specs) == before and ours.read_text() == "the user's\n", "the user's file was written over")
    a_file = world.root / "a-file"
    a_file.write_text("mine\n")
    refused(world, manifest[:-1] + [a_file], ["--resource-spec-dir", str(a_file), "is not a folder"])
    # A link to a folder is never written through.
    linked = world.root / "linked-specs"
    linked.symlink_to(specs)
    ours.unlink()
    before = tree_digest(specs)
    refused(world, manifest[:-1] + [linked], ["--resource-spec-dir", str(linked), "is a symbolic link"])
    check(tree_digest(specs) == before, "a spec was written through a link")


@scenario
def a_fleet_report_is_never_put_inside_an_inputs_results_root(world):
    """hazardlab merge --out inside the results root of a run folder it reads is refused before anything is
    written: the results root is hazardlab's run bookkeeping, not a place for reports."""
    run = start_run(world, "20261101T000000Z-merge-1")
    out = world.results / "fleet"
    refused(world, [world.args.report_tool, "merge", "--out", out, run], ["inside the results root", str(run)])
    check(not out.exists(), "the refused merge made its folder")


@scenario
def a_soak_duration_under_another_profile_is_refused(world):
    """HAZARDLAB_SOAK_DURATION, like --duration, applies only to the soak profile: under another it would be
    recorded and ignored."""
    refused(world, [world.args.tool, "run"], ["HAZARDLAB_SOAK_DURATION='5m'", "profile is health"],
            {"HAZARDLAB_SOAK_DURATION": "5m", "HAZARDLAB_PROFILE": "health"})
    refused(world, [world.args.tool, "settings"], ["HAZARDLAB_SOAK_DURATION='5m'", "profile is validation"],
            {"HAZARDLAB_SOAK_DURATION": "5m"})
    rc, out = world.run([world.args.tool, "settings"], {"HAZARDLAB_SOAK_DURATION": "5m", "HAZARDLAB_PROFILE": "soak"})
    check(rc == 0, f"a soak's duration under the soak profile was refused:\n{out}")


def case_progress(out):
    """A line of `hazardlab run`'s case progress ("  1/84 ..."), not a "1/" inside a folder's name."""
    return re.search(r"(^|\s)1/\d+\b", out, re.MULTILINE) is not None


@scenario
def every_output_place_is_checked_before_the_first_case(world):
    """hazardlab run refuses a report folder that is not its own, or the results root itself, before any
    case runs or any run starts."""
    same = world.root / "both"
    out = refused(world, [world.args.tool, "run", "--results-root", same, "--reports-dir", same],
                  [str(same), "same folder"])
    check(not case_progress(out) and not same.exists(), f"the refused run started:\n{out}")
    inside = world.root / "outer"
    refused(world, [world.args.tool, "run", "--results-root", inside, "--reports-dir", inside / "reports"],
            ["one inside the other"])
    foreign = world.root / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    out = refused(world, [world.args.tool, "run", "--reports-dir", foreign], [str(foreign), "notes.txt"])
    check(not case_progress(out), f"cases ran before the report folder was checked:\n{out}")
    check(world.run_ids() == [], f"a run started before its report folder was checked: {world.run_ids()}")
    check([p.name for p in foreign.iterdir()] == ["notes.txt"], "the foreign folder was written into")


@scenario
def a_case_never_writes_into_a_report_set(world):
    """A case pointed at a published report set refuses to write there (exit 2), and the set is unchanged."""
    hazard, variant = first_case(world)
    run = start_run(world, "20261101T000000Z-scenario-1")
    rc, out = world.run([world.args.report_tool, "--run", run, "--out", world.reports])
    check(rc == 0, f"the report failed:\n{out}")
    report_set = world.reports / "runs" / run.name
    before = tree_digest(report_set)
    for program in ([world.args.cases, "--device", "none", "--hazard", hazard, "--variant", variant],
                    [world.args.perf, "--device", "none", "--part", "bandwidth"]):
        refused(world, program, [str(report_set), "report set"], {"HAZARDLAB_RUN_DIR": str(report_set)})
    check(tree_digest(report_set) == before, "a case wrote into the report set")


@scenario
def a_failed_write_is_a_failure_that_names_the_file(world):
    """A result that cannot be written fails its case (exit 1, the file and the error named), in the case
    runner, the warm worker and the measurement runner; never an abort."""
    hazard, variant = first_case(world)
    run = start_run(world, "20261101T000000Z-scenario-2")
    # The device folder is a file: every result written under it fails, as on a full disk.
    (run / "nogpu").write_text("in the way")
    env = {"HAZARDLAB_RUN_DIR": str(run)}
    for command in ([world.args.cases, "--device", "none", "--hazard", hazard, "--variant", variant],
                    [world.args.cases, "--device", "none", "--hazard", hazard, "--variant", variant, "--warm"],
                    [world.args.perf, "--device", "none", "--part", "overlap"]):
        rc, out = world.run(command, env)
        shown = " ".join(map(str, command[1:]))
        check(rc == 1, f"`{shown}` with an unwritable result exited {rc}, not 1:\n{out}")
        check(str(run / "nogpu") in out, f"`{shown}` does not name the file it could not write:\n{out}")
        check("terminate called" not in out, f"`{shown}` aborted:\n{out}")


@scenario
def a_full_disk_fails_the_run(world):
    """hazardlab run with its results root on a 100 KiB file system exits non-zero, names what it could not
    write, and does not abort. Needs a tmpfs mount (root, or a user namespace)."""
    mount = world.root / "small"
    mount.mkdir()
    inner = (f"mount -t tmpfs -o size=100k tmpfs '{mount}' && exec '{world.args.tool}' run "
             f"--results-root '{mount}/results' --reports-dir '{world.reports}'")
    for unshare in (["unshare", "-m"], ["unshare", "-rm"]):
        if shutil.which(unshare[0]) and subprocess.run(unshare + ["true"], capture_output=True).returncode == 0:
            rc, out = world.run(unshare + ["sh", "-c", inner], timeout=900)
            break
    else:
        check(False, "this machine cannot mount a tmpfs in a new mount namespace (unshare -m or -rm)")
    check(rc not in (0, 134) and rc > 0, f"a run on a full disk exited {rc}:\n{out[-3000:]}")
    check("No space left on device" in out, f"the run does not say the disk was full:\n{out[-3000:]}")
    check("terminate called" not in out, f"a program aborted:\n{out[-3000:]}")
    # A case that could not write its result failed: the GPU's verdict says so, never "not run" alone.
    check("FAILED without leaving a result" in out, f"the verdict does not name the failed cases:\n{out[-3000:]}")


if __name__ == "__main__":
    sys.exit(test_runs.main())
