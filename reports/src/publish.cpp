#include "hazardlab/publish.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ostream>
#include <stdexcept>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/folder_marker.hpp"
#include "hazardlab/health_line.hpp"
#include "hazardlab/prometheus.hpp"
#include "hazardlab/result_store.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/results_root.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, const fs::path& path, int err) {
  throw std::runtime_error("cannot " + what + " " + path.string() + ": " + std::strerror(err));
}

// Replaces `link` with a symbolic link to `target` in one rename.
void point(const fs::path& link, const fs::path& target) {
  const fs::path tmp = link.parent_path() / ("." + link.filename().string() + ".tmp." + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove(tmp, ec);
  fs::create_symlink(target, tmp, ec);
  if (ec) throw std::runtime_error("cannot create the link " + tmp.string() + ": " + ec.message());
  if (::rename(tmp.c_str(), link.c_str()) != 0) {
    const int err = errno;
    fs::remove(tmp, ec);
    fail("point", link, err);
  }
}

// Moves the finished set `staging` to `final`; if a set for the run is already there (the run
// was reported again), the two are exchanged in one step and the old one removed.
void move_into_place(const fs::path& staging, const fs::path& final) {
  if (::rename(staging.c_str(), final.c_str()) == 0) return;
  if (errno != EEXIST && errno != ENOTEMPTY) fail("move the report set to", final, errno);
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, final.c_str(), RENAME_EXCHANGE) != 0) {
    fail("replace the report set", final, errno);
  }
  std::error_code ec;
  fs::remove_all(staging, ec);  // now the previous set of this run
}

std::string link_target_name(const fs::path& link) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(link, ec);
  return ec ? std::string() : target.filename().string();
}

}  // namespace

BuiltRun build_run(const fs::path& run_dir, bool require_gpu) {
  std::error_code ec;
  if (run_dir.empty()) throw std::invalid_argument("no run folder given; expected <results root>/runs/<run-id>");
  // A run whose session-start was refused has no folder: its report (ctest's cleanup) fails, exit 1.
  if (!fs::exists(run_dir, ec)) throw std::runtime_error("no run folder " + run_dir.string());
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
    throw std::runtime_error("the run folder " + run_dir.string() +
                             " has no run record: the run did not start (its session-start failed or was refused)");
  }
  BuiltRun built;
  RunContents& c = built.contents;
  c.run = load_run_record(run_dir);  // its id checked as it is read
  c.catalog = load_catalog(run_dir);
  c.inventory = load_inventory(run_dir);
  LoadedResults loaded = load_results(run_dir);
  c.results = std::move(loaded.results);
  built.unreadable = std::move(loaded.unreadable);
  c.perf[-1] = load_perf(run_dir, -1);
  for (const DeviceFingerprint& d : c.inventory.devices) c.perf[d.index] = load_perf(run_dir, d.index);
  built.reports = build_reports(c, require_gpu);

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

std::vector<OwnEntry> report_folder_entries() {
  return {{std::string(kReportsMarker), OwnEntry::Kind::Marker},
          {std::string(kRunsFolder), OwnEntry::Kind::FolderOfMarked, kReportSetMarker},
          {std::string(kCurrentLink), OwnEntry::Kind::LinkIntoRuns},
          {std::string(kLatestLink), OwnEntry::Kind::LinkIntoRuns}};
}

PublishedSet publish_reports(const std::vector<GpuReport>& reports, const RunRecord& run,
                             const ReportOptions& options) {
  const fs::path& out = options.out_dir;
  claim_folder(out, kReportsMarker, "report folder", report_folder_entries());
  const fs::path runs = out / kRunsFolder;
  std::error_code ec;
  fs::create_directories(runs, ec);
  if (ec) throw std::runtime_error("cannot create " + runs.string() + ": " + ec.message());

  const fs::path staging = runs / ("." + run.id + ".staging." + std::to_string(::getpid()));
  fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  if (ec) throw std::runtime_error("cannot write the report set into " + runs.string() + ": " + ec.message());
  try {
    write_marker(staging, kReportSetMarker, "A report set written by hazardlab.");  // renamed into place: same folder
    write_file_atomically(staging / kRunRecordFile, nlohmann::json(run).dump(2) + "\n");
    for (const GpuReport& r : reports) {
      const std::string stem = r.file_stem();
      write_file_atomically(staging / (stem + ".json"), report_to_json(r).dump(2) + "\n");
      write_file_atomically(staging / (stem + ".md"), report_to_markdown(r));
      write_file_atomically(staging / (stem + ".html"), report_to_html(r));
      write_file_atomically(staging / (stem + ".junit.xml"), report_to_junit(r));
    }
  } catch (const std::exception&) {
    fs::remove_all(staging, ec);  // a half-written set (a full disk) is not left behind
    throw;
  }
  const fs::path final = runs / run.id;
  move_into_place(staging, final);

  const fs::path relative = fs::path(kRunsFolder) / run.id;
  point(out / kLatestLink, relative);
  if (run.complete) point(out / kCurrentLink, relative);
  return {final, prune_marked_folders(runs, kReportSetMarker, options.keep_runs,
                                     {link_target_name(out / kCurrentLink), link_target_name(out / kLatestLink)})};
}

int report_run(const fs::path& run_dir, const ReportOptions& options, std::ostream& out, std::ostream& err) {
  // Whatever happens below, a run that holds its results root's lock and has ended lets go of it.
  std::error_code ec;
  fs::path dir = fs::absolute(run_dir, ec).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "runs/<id>/"
  const fs::path root = dir.parent_path().parent_path();
  const bool in_root = carries_marker(root, kResultsRootMarker);
  // The run still going (its owner alive) keeps its lock and its record: a second run must not
  // start beside it, and its record must not say it ended.
  const std::optional<LockHolder> holder = in_root ? read_run_lock(root) : std::nullopt;
  const bool holder_ended = holder && !lock_holder_may_be_running(*holder);
  struct Release {
    fs::path root;
    std::string id;
    bool active;
    ~Release() {
      if (active) release_run_lock(root, id);
    }
  } release{root, dir.filename().string(), holder_ended};

  // A report folder inside the run folder (or around it) would write into the record it reports, or prune it.
  if (!options.out_dir.empty() && fs::exists(run_dir, ec) && folders_overlap(run_dir, options.out_dir)) {
    err << "hazardlab: the report folder " << options.out_dir.string() << " and the run folder " << run_dir.string()
        << " are one inside the other; give the reports a folder of their own (--out); no report written\n";
    return 2;
  }
  if (!options.prometheus_dir.empty()) {
    try {
      require_prometheus_folder(options.prometheus_dir);
    } catch (const std::invalid_argument& e) {
      err << "hazardlab: " << e.what() << "; no report written\n";
      return 2;
    }
  }
  BuiltRun built;
  try {
    built = build_run(run_dir, options.require_gpu);
  } catch (const std::invalid_argument& e) {
    err << "hazardlab: " << e.what() << "; no report written\n";
    return 2;
  } catch (const std::exception& e) {
    err << "hazardlab: " << e.what() << "; no report written\n";
    return 1;
  }
  // The report alone sees only that such a case is missing, and would call the run partial.
  for (GpuReport& r : built.reports) {
    const auto failed = std::count_if(r.not_run.begin(), r.not_run.end(), [&](const std::string& name) {
      return std::find(options.failed_cases.begin(), options.failed_cases.end(), name) != options.failed_cases.end();
    });
    if (failed == 0) continue;
    r.verdict = Verdict::Fail;
    r.verdict_reason = std::to_string(failed) +
                       " case(s) FAILED without leaving a result (it could not be written, or the case crashed: "
                       "see its log); " +
                       r.verdict_reason;
    built.contents.run.verdicts[r.file_stem()] = std::string(to_string(r.verdict));
  }
  for (GpuReport& r : built.reports) r.run = built.contents.run;
  const RunRecord& run = built.contents.run;
  int status = 0;
  const bool still_going = holder && holder->run_id == run.id && !holder_ended;
  release.id = run.id;
  if (still_going) {
    err << "hazardlab: run " << run.id << " is still going (" << holder->describe()
        << "); these reports show it so far, and it keeps the results root's lock\n";
  } else {
    try {
      store_run_record(run_dir, run);
    } catch (const std::exception& e) {
      err << "hazardlab: " << e.what() << " (the reports are written all the same)\n";
      status = 1;
    }
  }
  PublishedSet published;
  try {
    published = publish_reports(built.reports, run, options);
  } catch (const FolderRefused& e) {
    err << "hazardlab: " << e.what() << '\n';
    return 2;
  }
  for (const std::string& name : published.pruned) {
    out << "hazardlab: removed the report set " << (options.out_dir / kRunsFolder / name).string()
        << ", the oldest beyond the " << options.keep_runs << " kept\n";
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
  if (!built.unreadable.empty()) status = 1;
  if (!options.prometheus_dir.empty()) {
    try {
      write_prometheus(options.prometheus_dir, reports_to_prometheus(built.reports, run));
      out << "hazardlab: metrics for Prometheus in " << (options.prometheus_dir / kPrometheusFile).string() << '\n';
    } catch (const std::exception& e) {
      err << "hazardlab: the metrics for Prometheus were not written: " << e.what() << '\n';
      status = 1;
    }
  }
  for (const GpuReport& r : built.reports) {
    out << "hazardlab: "
        << (r.device ? "GPU " + std::to_string(r.device->index) + " " + r.device->name : std::string("no GPU")) << ": "
        << to_string(r.verdict) << ": " << r.verdict_reason << '\n';
    if (r.verdict == Verdict::Fail || r.verdict == Verdict::Inconclusive) status = 1;
    if (options.require_gpu && (r.verdict == Verdict::Partial || r.verdict == Verdict::Skipped)) status = 1;
  }
  if (options.require_gpu && !run.complete && status == 0) {
    err << "hazardlab: HAZARDLAB_REQUIRE_GPU=1: a partial run is not a validation\n";
    status = 1;
  }
  // Last: the node's line, which a health-check wrapper takes as its drain reason.
  out << node_health_line(built.reports, run) << '\n';
  return status;
}

}  // namespace hazardlab
