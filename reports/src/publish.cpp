// A run's report set published (publish_reports): written under a dot name, moved into place in one rename, and
// the `latest` and `current` links pointed at it, each replaced by rename(2).
#include "hazardlab/publish.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/folder_marker.hpp"
#include "hazardlab/own_files.hpp"
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
// was reported again), the two are exchanged in one step and the old one removed (claim_report_folder made
// sure it holds nothing but hazardlab's own files).
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

std::vector<OwnEntry> report_folder_entries() {
  return {{std::string(kReportsMarker), OwnEntry::Kind::Marker},
          {std::string(kRunsFolder), OwnEntry::Kind::FolderOfMarked, kReportSetMarker},
          {std::string(kCurrentLink), OwnEntry::Kind::LinkIntoRuns},
          {std::string(kLatestLink), OwnEntry::Kind::LinkIntoRuns}};
}

void claim_report_folder(const std::string& run_id, const fs::path& out) {
  claim_folder(out, kReportsMarker, "report folder", report_folder_entries());
  // The run reported again replaces its set: a user's file put into the old one would go with it.
  const fs::path previous = out / kRunsFolder / run_id;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(previous, ec))) return;
  if (const std::string foreign = first_foreign_entry(previous, kReportSetMarker); !foreign.empty()) {
    throw FolderRefused("the report set " + previous.string() + " of this run holds " + foreign +
                        ", which hazardlab did not write; reporting the run again would replace the set: move " +
                        foreign + " out of it, or give another report folder (--out)");
  }
}

PublishedSet publish_reports(const std::vector<GpuReport>& reports, const RunRecord& run,
                             const ReportOptions& options) {
  const fs::path& out = options.out_dir;
  claim_report_folder(run.id, out);
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

}  // namespace hazardlab
