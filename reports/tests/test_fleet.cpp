// The fleet report's rules: a row per GPU showing its latest complete run, partial and stale runs
// flagged, a slow GPU flagged among its model only, and an exit status that hides no failure.
#include <gtest/gtest.h>

#include <sstream>

#include "fleet_fixture.hpp"

using namespace hazardlab;
using namespace hazardlab::testing;
namespace fs = std::filesystem;

namespace {

const FleetRow& row_of(const FleetReport& report, const std::string& key) {
  for (const FleetRow& row : report.rows) {
    if (row.key() == key) return row;
  }
  throw std::runtime_error("no row " + key);
}

std::string error_of(const std::vector<fs::path>& runs) {
  try {
    merge_runs(runs, fleet_options());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Fleet, EachGpuShowsItsLatestCompleteRunWithItsFlags) {
  const Fleet fleet = write_fleet("fleet-rows");
  const FleetReport report = merge_runs(fleet.runs, fleet_options());
  std::vector<std::string> keys;
  for (const FleetRow& row : report.rows) keys.push_back(row.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"node-a/0000:00:00.0", "node-a/0000:01:00.0", "node-b/0000:00:00.0",
                                            "node-c/0000:00:00.0", "node-c/0000:01:00.0"}));
  EXPECT_EQ(report.newest_run_started_at, "2026-11-22T06:00:00Z");
  EXPECT_EQ(report.generated_at, "2026-11-23T00:00:00Z");

  // Seen in three runs: the newer complete one shows, not the older one nor the later partial one.
  const FleetRow& a0 = row_of(report, "node-a/0000:00:00.0");
  EXPECT_EQ(a0.verdict, Verdict::Pass) << a0.verdict_reason;
  EXPECT_EQ(a0.run_id, "20261121T000000Z-node-a-1");
  EXPECT_EQ(a0.run_folder, fleet.runs[1]);
  EXPECT_EQ(a0.superseded_runs, 2);
  ASSERT_EQ(a0.newer_partial_runs.size(), 1u);
  EXPECT_EQ(a0.newer_partial_runs[0].run_id, "20261122T060000Z-node-a-1");
  EXPECT_EQ(a0.newer_partial_runs[0].verdict, Verdict::Partial);
  EXPECT_FALSE(a0.partial || a0.stale || a0.outlier);
  EXPECT_EQ(a0.pinned_h2d_gbps, 55.3);
  EXPECT_EQ(a0.pinned_d2h_gbps, 55.2);
  EXPECT_EQ(a0.controls_reproduced, 1);
  EXPECT_EQ(a0.controls_run, 1);
  EXPECT_EQ(a0.uuid, "GPU-node-a-0");
  EXPECT_EQ(a0.cuda_index, 0);
  EXPECT_EQ(a0.nvidia_smi_index, 0);
  EXPECT_EQ(a0.driver_release, "580.00");
  EXPECT_TRUE(a0.failing_cases.empty() && a0.failing_checks.empty());

  // The bad GPU: a guard let wrong data through.
  const FleetRow& a1 = row_of(report, "node-a/0000:01:00.0");
  EXPECT_EQ(a1.verdict, Verdict::Fail);
  EXPECT_EQ(a1.failing_cases, std::vector<std::string>{"h2d-pinned-mutate/stream-synchronize"});
  EXPECT_EQ(a1.run_id, "20261121T000000Z-node-a-1");
  EXPECT_FALSE(a1.outlier);

  // Only a partial run: shown, and marked so; the host's older no-GPU run is left out, with a note.
  const FleetRow& b0 = row_of(report, "node-b/0000:00:00.0");
  EXPECT_EQ(b0.verdict, Verdict::Partial);
  EXPECT_TRUE(b0.partial);
  EXPECT_EQ(b0.name, "Other GPU");
  EXPECT_EQ(b0.superseded_runs, 0);
  EXPECT_FALSE(b0.stale);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find("20261119T000000Z-node-b-1"), std::string::npos) << report.notes[0];

  // Twelve days behind the newest run: stale, with its verdict kept.
  const FleetRow& c0 = row_of(report, "node-c/0000:00:00.0");
  EXPECT_EQ(c0.verdict, Verdict::Pass);
  EXPECT_TRUE(c0.stale);
  EXPECT_NE(c0.stale_reason.find("started 2026-11-10T00:00:00Z"), std::string::npos) << c0.stale_reason;
  EXPECT_NE(c0.stale_reason.find("days before the newest run of the merge (2026-11-22T06:00:00Z)"), std::string::npos)
      << c0.stale_reason;
  const FleetRow& c1 = row_of(report, "node-c/0000:01:00.0");
  EXPECT_EQ(c1.verdict, Verdict::Fail);
  EXPECT_EQ(c1.failing_checks, std::vector<std::string>{"pinned-h2d-link-fraction"});
  EXPECT_TRUE(c1.stale && c1.outlier);

  const auto counts = report.counts();
  EXPECT_EQ(counts.at(Verdict::Pass), 2);
  EXPECT_EQ(counts.at(Verdict::Fail), 2);
  EXPECT_EQ(counts.at(Verdict::Partial), 1);
  EXPECT_EQ(counts.at(Verdict::Skipped), 0);
  EXPECT_EQ(fleet_exit_status(report), 1);
  ASSERT_EQ(report.runs.size(), 6u);
  EXPECT_EQ(report.runs[1].rows_shown, 2);  // A2
  EXPECT_EQ(report.runs[0].rows_shown, 0);  // A1, superseded
}

TEST(Fleet, ASlowGpuIsFlaggedAmongItsOwnModelOnly) {
  const FleetReport report = merge_runs(write_fleet("fleet-outlier").runs, fleet_options());
  const FleetRow& slow = row_of(report, "node-c/0000:01:00.0");
  ASSERT_TRUE(slow.outlier);
  // median of 55.3, 55.1, 55.2, 41.0 is 55.15; MAD 0.10, so the 1% floor (0.55) is the scale.
  EXPECT_NE(slow.outlier_reason.find("pinned host-to-device 256 MiB at 41.00 GB/s is 25.7 scaled MADs below the "
                                     "median 55.15 GB/s of 4 Test GPU"),
            std::string::npos)
      << slow.outlier_reason;
  EXPECT_EQ(slow.outlier_reason.find("device-to-host"), std::string::npos) << slow.outlier_reason;
  for (const FleetRow& row : report.rows) EXPECT_EQ(row.outlier, &row == &slow) << row.key();
  ASSERT_EQ(report.models.size(), 4u);  // two models, two figures
  bool other_untested = false;
  for (const ModelFigure& m : report.models) {
    if (m.model == "Test GPU") {
      EXPECT_TRUE(m.tested) << m.figure;
    }
    if (m.model == "Other GPU") {
      other_untested = !m.tested && m.gpus == 1 && m.note.find("needs 3") != std::string::npos;
    }
  }
  EXPECT_TRUE(other_untested);
  // With a threshold beyond its distance, the slow GPU is not flagged.
  FleetOptions lax = fleet_options();
  lax.outlier_mads = 30;
  EXPECT_FALSE(row_of(merge_runs(write_fleet("fleet-lax").runs, lax), "node-c/0000:01:00.0").outlier);
}

TEST(Fleet, TheSpreadIsTheMedianAndScaledMadWithAFloor) {
  const RobustSpread same = robust_spread({50, 50, 50});
  EXPECT_DOUBLE_EQ(same.median, 50);
  EXPECT_DOUBLE_EQ(same.mad, 0);
  EXPECT_DOUBLE_EQ(same.scale, 0.5);  // 1% of the median
  const RobustSpread wide = robust_spread({1, 2, 3, 4, 100});
  EXPECT_DOUBLE_EQ(wide.median, 3);
  EXPECT_DOUBLE_EQ(wide.mad, 1);
  EXPECT_DOUBLE_EQ(wide.scale, 1.4826);
  EXPECT_DOUBLE_EQ(robust_spread({4, 1, 3, 2}).median, 2.5);
}

TEST(Fleet, StaleIsMeasuredFromTheNewestRunAndConfigurable) {
  const Fleet fleet = write_fleet("fleet-stale");
  FleetOptions longer = fleet_options();
  longer.stale_after = std::chrono::hours(24 * 14);
  EXPECT_FALSE(row_of(merge_runs(fleet.runs, longer), "node-c/0000:00:00.0").stale);
  // Merged alone, node-c's run is the newest: nothing is stale, whatever the date today.
  EXPECT_FALSE(merge_runs({fleet.runs[5]}, fleet_options()).rows[0].stale);
  FleetOptions none = fleet_options();
  none.stale_after = std::chrono::hours(0);
  EXPECT_THROW(merge_runs(fleet.runs, none), std::invalid_argument);
  FleetOptions negative = fleet_options();
  negative.outlier_mads = -1;
  EXPECT_THROW(merge_runs(fleet.runs, negative), std::invalid_argument);
}

TEST(Fleet, ExitStatusIsZeroOnlyWhenEveryRowPassesAndNoLaterFailureIsHidden) {
  const fs::path base = fresh_dir("fleet-exit");
  RunContents good = host_run("node-a", "2026-11-20T00:00:00Z", 2);
  const fs::path good_dir = write_run_folder(base / "a", good);
  EXPECT_EQ(fleet_exit_status(merge_runs({good_dir}, fleet_options())), 0);
  // A later one-case run that failed: the complete PASS still shows, but the fleet does not pass.
  RunContents lab = host_run("node-a", "2026-11-21T00:00:00Z", 2);
  lab.results = {result("h2d-pinned-mutate", "stream-synchronize", 1, Outcome::Incorrect)};
  lab.perf.clear();
  const FleetReport report = merge_runs({good_dir, write_run_folder(base / "a", lab)}, fleet_options());
  const FleetRow& row = row_of(report, "node-a/0000:01:00.0");
  EXPECT_EQ(row.verdict, Verdict::Pass);
  ASSERT_EQ(row.newer_partial_runs.size(), 1u);
  EXPECT_EQ(row.newer_partial_runs[0].verdict, Verdict::Fail);
  EXPECT_EQ(fleet_exit_status(report), 1);
}

// The merge command's exit status for a fleet of one GPU whose shown row has each standing: 0 for PASS only. A
// PARTIAL row (its host never finished a run) is not a pass, nor is any other standing.
TEST(Fleet, TheMergeCommandExitsNonZeroForEveryShownStandingButPass) {
  const fs::path base = fresh_dir("fleet-standings");
  const auto with_outcome = [](RunContents c, const std::string& variant, Outcome o) {
    for (VariantResult& r : c.results) {
      if (r.variant_id == variant) r.outcome = o;
    }
    return c;
  };
  RunContents pass = host_run("node-p", "2026-11-20T00:00:00Z", 1);
  RunContents partial = pass;
  partial.results.resize(1);  // one case of the catalogue ran: the GPU's only run is partial
  RunContents no_gpu = host_run("node-p", "2026-11-20T00:00:00Z", 0);
  const std::vector<std::pair<Verdict, RunContents>> fleets = {
      {Verdict::Pass, pass},
      {Verdict::Fail, with_outcome(pass, "stream-synchronize", Outcome::Incorrect)},
      {Verdict::Inconclusive, with_outcome(pass, "stream-synchronize", Outcome::Inconclusive)},
      {Verdict::Partial, partial},
      {Verdict::Skipped, no_gpu}};
  for (const auto& [verdict, contents] : fleets) {
    const std::string name(to_string(verdict));
    const fs::path run = write_run_folder(base / name, contents);
    const FleetReport report = merge_runs({run}, fleet_options());
    ASSERT_EQ(report.rows.size(), 1u) << name;
    ASSERT_EQ(report.rows[0].verdict, verdict) << name;  // the row really has the standing under test
    EXPECT_EQ(report.rows[0].partial, verdict == Verdict::Partial) << name;
    std::ostringstream out, err;
    const int status = merge_command({run}, fleet_options(base / ("fleet-" + name)), out, err);
    EXPECT_EQ(status, verdict == Verdict::Pass ? 0 : 1) << name << "\n" << out.str() << err.str();
    EXPECT_EQ(fleet_exit_status(report), status) << name;
  }
}

TEST(Fleet, AHostWithoutAGpuGivesOneSkippedRowThatSaysWhy) {
  const fs::path base = fresh_dir("fleet-nogpu");
  RunContents none = host_run("node-d", "2026-11-20T00:00:00Z", 0);
  none.results.resize(2);  // a filtered run: PARTIAL as a report, SKIPPED as a fleet row
  const FleetReport report = merge_runs({write_run_folder(base / "d", none)}, fleet_options());
  ASSERT_EQ(report.rows.size(), 1u);
  const FleetRow& row = report.rows[0];
  EXPECT_EQ(row.key(), "node-d/nogpu");
  EXPECT_FALSE(row.has_gpu);
  EXPECT_EQ(row.verdict, Verdict::Skipped);
  EXPECT_TRUE(row.partial);
  EXPECT_EQ(row.no_device_reason, "no NVIDIA driver");
  EXPECT_EQ(fleet_exit_status(report), 1);
}

TEST(Fleet, TheSameUuidInAnotherSlotIsTheSameGpuAndARunGivenTwiceIsReadOnce) {
  const fs::path base = fresh_dir("fleet-moved");
  RunContents before = host_run("node-a", "2026-11-20T00:00:00Z", 1);
  RunContents after = host_run("node-a", "2026-11-21T00:00:00Z", 1);
  after.inventory.devices[0].pci_bus_id = "0000:81:00.0";  // the same board, moved
  after.run.devices = after.inventory.devices;
  const fs::path first = write_run_folder(base / "a", before), second = write_run_folder(base / "a", after);
  const FleetReport report = merge_runs({first, second, second}, fleet_options());
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_EQ(report.rows[0].pci_bus_id, "0000:81:00.0");
  EXPECT_EQ(report.rows[0].superseded_runs, 1);
  EXPECT_EQ(report.runs.size(), 2u);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find("given twice"), std::string::npos);
}

TEST(Fleet, AFolderThatIsNotARunIsAnErrorNamingIt) {
  const fs::path base = fresh_dir("fleet-bad");
  EXPECT_NE(error_of({base / "missing"}).find((base / "missing").string() + " does not exist"), std::string::npos);
  fs::create_directories(base / "empty");
  const std::string empty = error_of({base / "empty"});
  EXPECT_NE(empty.find((base / "empty").string()), std::string::npos) << empty;
  EXPECT_NE(empty.find("run.json"), std::string::npos) << empty;
  fs::create_directories(base / "broken");
  std::ofstream(base / "broken" / "run.json") << "{ not json";
  EXPECT_NE(error_of({base / "broken"}).find("run.json"), std::string::npos);
  std::ofstream(base / "a-file") << "x";
  EXPECT_NE(error_of({base / "a-file"}).find("is not a folder"), std::string::npos);
  EXPECT_NE(error_of({}).find("no run folder"), std::string::npos);
}
