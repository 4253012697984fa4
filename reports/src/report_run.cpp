// `hazardlab report` (report_run): a run folder's reports built, published and said, the run record written
// back, the metrics for Prometheus written, and the exit status from the verdicts; the results root's lock let
// go of by a run that has ended.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "hazardlab/folder_marker.hpp"
#include "hazardlab/health_line.hpp"
#include "hazardlab/prometheus.hpp"
#include "hazardlab/publish.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/results_root.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

// The results root's lock as the report finds it. A run still going (its owner alive) keeps its lock and its
// record: a second run must not start beside it, and its record must not say it ended. A run that holds it and
// has ended lets go of it when the report is done, whatever happened (the destructor).
class RootLock {
 public:
  explicit RootLock(const fs::path& run_dir) {
    std::error_code ec;
    fs::path dir = fs::absolute(run_dir, ec).lexically_normal();
    if (dir.filename().empty()) dir = dir.parent_path();  // "runs/<id>/"
    root_ = dir.parent_path().parent_path();
    run_id_ = dir.filename().string();
    if (carries_marker(root_, kResultsRootMarker)) holder_ = read_run_lock(root_);
    ended_ = holder_ && !lock_holder_may_be_running(*holder_);
  }
  RootLock(const RootLock&) = delete;
  RootLock& operator=(const RootLock&) = delete;
  ~RootLock() {
    if (ended_) release_run_lock(root_, run_id_);
  }
  // The run's own id, from its record, once it is read: the folder's name may be another.
  void name_the_run(const std::string& run_id) { run_id_ = run_id; }
  // The holder of the lock while `run_id` is still going; nullptr when that run is not going on.
  const LockHolder* still_going(const std::string& run_id) const {
    return holder_ && holder_->run_id == run_id && !ended_ ? &*holder_ : nullptr;
  }

 private:
  fs::path root_;
  std::string run_id_;
  std::optional<LockHolder> holder_;
  bool ended_ = false;
};

// Why the report refuses its folders before it reads anything (bad input); "" when it does not. A report folder
// inside the run folder (or around it) would write into the record it reports, or prune it.
std::string refused_folders(const fs::path& run_dir, const ReportOptions& options) {
  std::error_code ec;
  if (!options.out_dir.empty() && fs::exists(run_dir, ec) && folders_overlap(run_dir, options.out_dir)) {
    return "the report folder " + options.out_dir.string() + " and the run folder " + run_dir.string() +
           " are one inside the other; give the reports a folder of their own (--out); no report written";
  }
  if (!options.prometheus_dir.empty()) {
    try {
      require_prometheus_folder(options.prometheus_dir, options.prometheus_given_as);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()) + "; no report written";
    }
  }
  return "";
}

// Whether the record built for the report says more than the run's run.json already does: an ended run reported
// before is not rewritten (its folder may be a read-only copy).
bool record_changes(const fs::path& run_dir, const RunRecord& run) {
  std::ifstream in(run_dir / kRunRecordFile, std::ios::binary);
  return nlohmann::json::parse(in, nullptr, false) != nlohmann::json(run);
}

// Why the run record, which must be written back, cannot be ("" if it can): said before anything is written.
std::string record_unwritable(const fs::path& run_dir, const RunRecord& run, const RootLock& lock) {
  if (lock.still_going(run.id) || !record_changes(run_dir, run)) return "";
  if (::access(run_dir.c_str(), W_OK | X_OK) == 0) return "";
  return "the run record " + (run_dir / kRunRecordFile).string() + " must be written back with the run's verdicts, "
         "and the run folder " + run_dir.string() + " cannot be written (" + std::strerror(errno) +
         "); report a copy of the run that can be written; no report written";
}

// Writes the run record back, unless the run is still going or it says so already; 1 when it could not be
// written, else 0.
int store_the_record(const fs::path& run_dir, const RunRecord& run, const RootLock& lock, std::ostream& err) {
  if (!record_changes(run_dir, run)) return 0;
  if (const LockHolder* holder = lock.still_going(run.id)) {
    err << "hazardlab: run " << run.id << " is still going (" << holder->describe()
        << "); these reports show it so far, and it keeps the results root's lock\n";
    return 0;
  }
  try {
    store_run_record(run_dir, run);
  } catch (const std::exception& e) {
    err << "hazardlab: " << e.what() << " (the reports are written all the same)\n";
    return 1;
  }
  return 0;
}

void say_published(const BuiltRun& built, const PublishedSet& published, const ReportOptions& options,
                   std::ostream& out, std::ostream& err) {
  const RunRecord& run = built.contents.run;
  for (const std::string& name : published.pruned.removed) {
    out << "hazardlab: removed the report set " << (options.out_dir / kRunsFolder / name).string()
        << ", the oldest beyond the " << options.keep_runs << " kept\n";
  }
  for (const Pruned::Kept& kept : published.pruned.kept) {
    out << "hazardlab: kept the report set " << (options.out_dir / kRunsFolder / kept.name).string()
        << " beyond the " << options.keep_runs << " kept: it holds " << kept.foreign
        << ", which hazardlab did not write\n";
  }
  for (const std::string& bad : built.unreadable) err << "hazardlab: unreadable result: " << bad << '\n';
  out << "hazardlab: run " << run.id << " is " << (run.complete ? "COMPLETE" : "PARTIAL") << "; reports in "
      << published.folder.string() << '\n';
  if (run.complete) {
    out << "hazardlab: published as the current reports: " << (options.out_dir / kCurrentLink).string() << '\n';
  } else {
    out << "hazardlab: " << run.not_run.size()
        << " registered case(s) left no result; the current reports (the last complete run) are unchanged: "
        << (options.out_dir / kCurrentLink).string() << '\n';
  }
}

// Writes the metrics for Prometheus, when asked; 1 when they could not be written, else 0.
int write_metrics(const BuiltRun& built, const ReportOptions& options, std::ostream& out, std::ostream& err) {
  if (options.prometheus_dir.empty()) return 0;
  try {
    write_prometheus(options.prometheus_dir, reports_to_prometheus(built.reports, built.contents.run));
    out << "hazardlab: metrics for Prometheus in " << (options.prometheus_dir / kPrometheusFile).string() << '\n';
  } catch (const std::exception& e) {
    err << "hazardlab: the metrics for Prometheus were not written: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

// Says each GPU's verdict and returns `status` raised to 1 by any that fails the run: FAIL and INCONCLUSIVE
// always; with a GPU required, PARTIAL, SKIPPED and a partial run too.
int said_verdicts(const BuiltRun& built, const ReportOptions& options, int status, std::ostream& out,
                  std::ostream& err) {
  for (const GpuReport& r : built.reports) {
    out << "hazardlab: "
        << (r.device ? "GPU " + std::to_string(r.device->index) + " " + r.device->name : std::string("no GPU")) << ": "
        << to_string(r.verdict) << ": " << r.verdict_reason << '\n';
    if (r.verdict == Verdict::Fail || r.verdict == Verdict::Inconclusive) status = 1;
    if (options.require_gpu && (r.verdict == Verdict::Partial || r.verdict == Verdict::Skipped)) status = 1;
  }
  if (options.require_gpu && !built.contents.run.complete && status == 0) {
    err << "hazardlab: " << options.require_gpu_given_as << ": a partial run is not a validation\n";
    status = 1;
  }
  return status;
}

}  // namespace

int report_run(const fs::path& run_dir, const ReportOptions& options, std::ostream& out, std::ostream& err) {
  RootLock lock(run_dir);
  if (const std::string refused = refused_folders(run_dir, options); !refused.empty()) {
    err << "hazardlab: " << refused << '\n';
    return 2;
  }
  BuiltRun built;
  try {
    built = build_run(run_dir, options.require_gpu, options.failed_cases, options.require_gpu_given_as);
  } catch (const std::invalid_argument& e) {
    err << "hazardlab: " << e.what() << "; no report written\n";
    return 2;
  } catch (const std::exception& e) {
    err << "hazardlab: " << e.what() << "; no report written\n";
    return 1;
  }
  const RunRecord& run = built.contents.run;
  lock.name_the_run(run.id);
  PublishedSet published;
  if (const std::string why = record_unwritable(run_dir, run, lock); !why.empty()) {
    err << "hazardlab: " << why << '\n';
    return 2;
  }
  try {
    // The report folder is judged before the run record is written back: a refused one changes nothing.
    claim_report_folder(run.id, options.out_dir);
  } catch (const FolderRefused& e) {
    err << "hazardlab: " << e.what() << '\n';
    return 2;
  }
  int status = store_the_record(run_dir, run, lock, err);
  try {
    published = publish_reports(built.reports, run, options);
  } catch (const FolderRefused& e) {
    err << "hazardlab: " << e.what() << '\n';
    return 2;
  }
  say_published(built, published, options, out, err);
  if (!built.unreadable.empty()) status = 1;
  status = std::max(status, write_metrics(built, options, out, err));
  status = said_verdicts(built, options, status, out, err);
  // Last: the node's line, which a health-check wrapper takes as its drain reason.
  out << node_health_line(built.reports, run) << '\n';
  return status;
}

}  // namespace hazardlab
