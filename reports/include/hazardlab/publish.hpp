#pragma once
// Reporting a run: build every GPU's report from the run folder alone, write the set (JSON,
// Markdown, HTML, JUnit) into the report folder, and make it visible in one atomic step.
//
//   <reports>/runs/<run-id>/gpu0.{json,md,html,junit.xml}, run.json   every run's own reports
//   <reports>/latest  -> runs/<run-id>    the last run reported, complete or partial
//   <reports>/current -> runs/<run-id>    the last COMPLETE run: the GPUs' validation reports
//
// A partial run (a filtered selection) never moves `current`. Each pointer is a symbolic link
// replaced by rename(2), so a reader resolves it to one whole set, never a mix of two runs.
#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "hazardlab/report.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/results_root.hpp"

namespace hazardlab {

inline constexpr std::string_view kCurrentLink = "current";
inline constexpr std::string_view kLatestLink = "latest";

// What hazardlab keeps in a report folder, by name and kind (results_root.hpp's OwnEntry): its marker, runs/ of
// marked report sets, and the current and latest links into runs/.
std::vector<OwnEntry> report_folder_entries();
inline constexpr std::size_t kDefaultKeepRuns = 20;  // HAZARDLAB_KEEP_RUNS

struct ReportOptions {
  std::filesystem::path out_dir;
  bool require_gpu = false;
  // Report sets kept in the report folder, newest first, besides `current` and `latest`. A report
  // never removes a run folder: results are pruned only when a run starts (HAZARDLAB_KEEP_RUNS).
  std::size_t keep_runs = kDefaultKeepRuns;
  // Cases the caller saw end in failure, by registered name ("gpu0/<hazard>/<variant>"): one that
  // left no result (it could not write it, or crashed) fails its GPU instead of counting as not run.
  std::vector<std::string> failed_cases{};
  // node_exporter's textfile-collector folder: hazardlab.prom is written there too (prometheus.hpp).
  // Empty: none. A folder that is not one is bad input (exit 2); a failed write fails the exit status.
  std::filesystem::path prometheus_dir{};
  // How `prometheus_dir` was given, for the messages that name it: the option, or HAZARDLAB_PROMETHEUS_DIR.
  std::string prometheus_given_as = "--prometheus";
  // How a GPU came to be required, for the messages that say so: --require-gpu, or HAZARDLAB_REQUIRE_GPU=1.
  std::string require_gpu_given_as = "HAZARDLAB_REQUIRE_GPU=1";
};

// Reports the run in `run_dir`; prints what it wrote, the report sets it pruned and each GPU's
// verdict to `out`, problems to `err`. Releases the results root's lock if this run holds it and
// has ended (a run still going keeps its lock and its record). Returns the exit status: 0 when
// every verdict is PASS, SKIPPED or PARTIAL; 1 when any is FAIL or INCONCLUSIVE, a result is
// unreadable, a file could not be written or, with `require_gpu`, the run is partial or had no
// GPU; 2 for a path that is not a run folder, a run record newer than this program, or a report
// folder hazardlab will not write into.
int report_run(const std::filesystem::path& run_dir, const ReportOptions& options, std::ostream& out,
               std::ostream& err);

// Reads the run folder and builds its reports (build_reports, with the cases the caller saw fail), with the run
// record brought up to date (complete, not_run, verdicts, end time).
struct BuiltRun {
  RunContents contents;
  std::vector<GpuReport> reports;
  std::vector<std::string> unreadable;
};
// Throws std::invalid_argument for a path that is no run folder, std::runtime_error for a run that did not start.
BuiltRun build_run(const std::filesystem::path& run_dir, bool require_gpu,
                   const std::vector<std::string>& failed_cases = {},
                   std::string_view require_gpu_given_as = "HAZARDLAB_REQUIRE_GPU=1");

// Claims the report folder `out` (claim_folder) and refuses a set of the run `run_id` already there that holds
// anything hazardlab did not write (reporting the run again replaces its set); throws FolderRefused.
void claim_report_folder(const std::string& run_id, const std::filesystem::path& out);

// Writes one run's report set and moves the pointers; returns the set's folder and the oldest report sets
// removed beyond `keep_runs`, and those kept for a user's file in them.
struct PublishedSet {
  std::filesystem::path folder;
  Pruned pruned;
};
PublishedSet publish_reports(const std::vector<GpuReport>& reports, const RunRecord& run,
                                      const ReportOptions& options);

}  // namespace hazardlab
