// A run folder read and its reports built (build_run): the folder checked to be one hazardlab made, its record,
// catalog, inventory, results and measurements read, and the run record brought up to date.
#include <filesystem>
#include <stdexcept>

#include "hazardlab/folder_marker.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/publish.hpp"
#include "hazardlab/result_store.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/results_root.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

// Throws unless `run_dir` is a run folder with its record: std::invalid_argument for what is no run folder (bad
// input: a path that is missing, a folder without a record), std::runtime_error for a record that cannot be read.
// Under ctest, a run whose session-start was refused has no folder, or an empty one: its report (ctest's cleanup)
// fails with exit 2 and says that the run did not start.
void require_a_started_run(const fs::path& run_dir) {
  std::error_code ec;
  if (run_dir.empty()) throw std::invalid_argument("no run folder given; expected <results root>/runs/<run-id>");
  if (!fs::exists(run_dir, ec))
    throw std::invalid_argument("no run folder " + run_dir.string() +
                                " (expected <results root>/runs/<run-id>; under ctest, the run did not start: its "
                                "session-start failed or was refused, and said why)");
  if (!fs::is_directory(run_dir, ec)) {
    throw std::invalid_argument(run_dir.string() +
                                " is not a folder; expected a run folder (<results root>/runs/<run-id>)");
  }
  if (carries_marker(run_dir, kResultsRootMarker)) {
    throw std::invalid_argument(run_dir.string() + " is a results root, not a run folder; give one of its runs: " +
                                (run_dir / kRunsFolder).string() + "/<run-id>");
  }
  if (is_report_set(run_dir)) {
    throw std::invalid_argument(run_dir.string() + " is a published report set, not a run folder; give the run "
                                "folder under the results root (<results root>/runs/<run-id>)");
  }
  if (fs::is_symlink(fs::symlink_status(run_dir / kRunRecordFile, ec)))
    throw std::invalid_argument("the run record " + (run_dir / kRunRecordFile).string() +
                                " is a symbolic link, not the file hazardlab wrote; the report writes it back, so it "
                                "refuses: give a run folder as hazardlab made it");
  const bool has_record = fs::exists(run_dir / kRunRecordFile, ec);
  if (ec) {
    throw std::runtime_error("cannot read the run record " + (run_dir / kRunRecordFile).string() + ": " +
                             ec.message());
  }
  if (!has_record) {
    throw std::invalid_argument("the folder " + run_dir.string() + " has no run record (" +
                                std::string(kRunRecordFile) + "): it is no run folder hazardlab made, or its run did "
                                "not start (its session-start failed or was refused)");
  }
}

}  // namespace

BuiltRun build_run(const fs::path& run_dir, bool require_gpu, const std::vector<std::string>& failed_cases,
                   std::string_view require_gpu_given_as) {
  require_a_started_run(run_dir);
  BuiltRun built;
  RunContents& c = built.contents;
  try {
    c.run = load_run_record(run_dir);  // its id checked as it is read
    c.catalog = load_catalog(run_dir);
    c.inventory = load_inventory(run_dir);
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::exception& e) {
    // A record that is not hazardlab's (a user's own run.json) or a copy missing its catalogue: bad input.
    throw std::invalid_argument(run_dir.string() + " is not a whole run folder as hazardlab writes it: " + e.what());
  }
  LoadedResults loaded = load_results(run_dir);
  c.results = std::move(loaded.results);
  built.unreadable = std::move(loaded.unreadable);
  c.perf[-1] = load_perf(run_dir, -1);
  for (const DeviceFingerprint& d : c.inventory.devices) c.perf[d.index] = load_perf(run_dir, d.index);
  built.reports = build_reports(c, require_gpu, failed_cases, require_gpu_given_as);

  RunRecord& run = c.run;
  run.not_run.clear();
  run.verdicts.clear();
  for (const GpuReport& r : built.reports) {
    run.not_run.insert(run.not_run.end(), r.not_run.begin(), r.not_run.end());
    run.verdicts[r.file_stem()] = std::string(to_string(r.verdict));
  }
  run.complete = !built.reports.empty() && run.not_run.empty();
  run.state = RunState::Finished;
  if (run.ended_at.empty()) run.ended_at = utc_now_iso8601();
  for (GpuReport& r : built.reports) r.run = run;
  return built;
}

}  // namespace hazardlab
