// Writing a fleet report into its folder, and the merge command that both CLIs run.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <ostream>
#include <stdexcept>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/folder_marker.hpp"
#include "hazardlab/fleet.hpp"
#include "hazardlab/fnv1a.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/results_root.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

constexpr const char* kOutExpected =
    "expected a new folder, an empty one, or an earlier fleet report's (it has a "
    ".hazardlab-fleet marker made for it)";

// The fleet marker lists each file the fleet report wrote with the FNV-1a of its contents ("wrote fleet.csv
// 0123abcd..."): a file changed since (a user's edited fleet.csv) no longer matches and is not replaced.
constexpr std::string_view kWrote = "wrote ";

std::string digest_of(std::string_view text) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(text)));
  return hex;
}

std::string file_digest(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  return digest_of(std::string(std::istreambuf_iterator<char>(in), {}));
}

// What the marker says the fleet report wrote: file name -> "digest;" for each digest it may hold.
std::map<std::string, std::string> written_digests(const fs::path& out_dir) {
  std::map<std::string, std::string> digests;
  std::ifstream in(out_dir / kFleetMarker);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with(kWrote)) continue;
    const std::size_t space = line.rfind(' ');
    if (space > kWrote.size()) digests[line.substr(kWrote.size(), space - kWrote.size())] += line.substr(space + 1) + ";";
  }
  return digests;
}

// The folder may be written only if it is new, empty, or an earlier fleet report's: a folder of
// someone else's files is never written into, so nothing of theirs is overwritten.
void require_fleet_folder(const fs::path& out_dir) {
  if (out_dir.empty()) throw std::invalid_argument(std::string("no output folder given (--out); ") + kOutExpected);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(out_dir, ec))) return;
  if (!fs::is_directory(out_dir, ec)) {
    throw std::invalid_argument("the output folder " + out_dir.string() + " is not a folder; " + kOutExpected);
  }
  if (carries_marker(out_dir, kFleetMarker)) {
    // Its own files are replaced: a link or a folder in their place is not its own.
    for (const auto& entry : fs::directory_iterator(out_dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("fleet.", 0) == 0 && (entry.is_symlink() || !entry.is_regular_file()))
        throw std::invalid_argument("the output folder " + out_dir.string() + " holds " + entry.path().string() +
                                    ", which is not a file the fleet report wrote (a link or a folder); it is left "
                                    "as it is: " + kOutExpected);
    }
    // Each of its files must still be as the fleet report wrote it: one rewritten since is a user's now.
    const std::map<std::string, std::string> digests = written_digests(out_dir);
    for (const auto& entry : fs::directory_iterator(out_dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("fleet.")) continue;
      const auto wrote = digests.find(name);
      if (wrote == digests.end() || wrote->second.find(file_digest(entry.path()) + ";") == std::string::npos)
        throw std::invalid_argument("the output folder " + out_dir.string() + " holds " + entry.path().string() +
                                    ", which is not as the fleet report wrote it (changed since, or written by "
                                    "someone else); it is left as it is: move it away, or give another folder");
    }
    return;
  }
  std::vector<std::string> held;
  for (const auto& entry : fs::directory_iterator(out_dir, ec)) held.push_back(entry.path().filename().string());
  if (ec) throw std::invalid_argument("cannot read the output folder " + out_dir.string() + ": " + ec.message());
  if (!held.empty()) {
    std::sort(held.begin(), held.end());
    std::string list;
    for (std::size_t i = 0; i < held.size() && i < 5; ++i) list += (i ? ", " : "") + (out_dir / held[i]).string();
    if (held.size() > 5) list += ", ...";
    throw std::invalid_argument("the output folder " + out_dir.string() + " holds " + list + " and no " +
                                std::string(kFleetMarker) + " marker, so it is not a fleet report's and is left " +
                                "untouched; " + kOutExpected);
  }
}

std::string row_line(const FleetRow& row) {
  std::string line = row.key() + "  " + (row.has_gpu ? row.name : "no GPU: " + row.no_device_reason) + "  " +
                     std::string(to_string(row.verdict)) + "  run " + row.run_id;
  if (row.partial) line += "  partial";
  if (row.stale) line += "  stale";
  if (row.superseded_runs) line += "  (" + std::to_string(row.superseded_runs) + " other run(s) seen)";
  for (const NewerPartialRun& p : row.newer_partial_runs) {
    line += "  newer partial run " + p.run_id + ": " + std::string(to_string(p.verdict));
  }
  for (const auto* list : {&row.failing_cases, &row.failing_checks, &row.inconclusive_cases}) {
    for (const std::string& id : *list) line += "  " + id;
  }
  if (row.outlier) line += "  outlier: " + row.outlier_reason;
  return line;
}

}  // namespace

std::vector<fs::path> write_fleet_report(const FleetReport& report, const fs::path& out_dir) {
  require_fleet_folder(out_dir);
  try {
    // Marked before anything is written: the folder is recognisably ours, even if a later write fails.
    claim_folder(out_dir, kFleetMarker, "fleet report folder", {{std::string(kFleetMarker), OwnEntry::Kind::Marker}});
  } catch (const FolderRefused& e) {
    throw std::invalid_argument(e.what());
  }
  const std::vector<std::pair<fs::path, std::string>> files = {
      {out_dir / kFleetJsonFile, fleet_to_json(report).dump(2) + "\n"},
      {out_dir / "fleet.md", fleet_to_markdown(report)},
      {out_dir / "fleet.html", fleet_to_html(report)},
      {out_dir / "fleet.csv", fleet_to_csv(report)},
  };
  const std::string heading =
      "A fleet report folder written by hazardlab; the files it wrote, each with the FNV-1a of its contents:\n";
  std::string wrote, before;
  for (const auto& [path, text] : files) {
    wrote += std::string(kWrote) + path.filename().string() + " " + digest_of(text) + "\n";
    if (fs::is_regular_file(path)) before += std::string(kWrote) + path.filename().string() + " " + file_digest(path) + "\n";
  }
  // Until every file is written either spelling is the report's own: a write that fails half-way leaves none
  // of them looking like a user's.
  write_marker(out_dir, kFleetMarker, heading + before + wrote);
  std::vector<fs::path> written;
  for (const auto& [path, text] : files) {
    write_file_atomically(path, text);
    written.push_back(path);
  }
  write_marker(out_dir, kFleetMarker, heading + wrote);
  return written;
}

int merge_command(const std::vector<fs::path>& runs, const FleetOptions& options, std::ostream& out,
                  std::ostream& err) {
  FleetReport report;
  std::vector<fs::path> written;
  try {
    require_fleet_folder(options.out_dir);  // before reading anything: a refusal costs nothing
    for (const fs::path& run : runs) {
      if (fs::exists(run) && folders_overlap(run, options.out_dir))
        throw std::invalid_argument("the output folder " + options.out_dir.string() + " and the run folder " +
                                    run.string() + " are one inside the other; give the fleet report a folder of its own");
      // A run folder's results root (<root>/runs/<run id>) is hazardlab's too: its runs are pruned and locked there,
      // and a fleet report inside it would be one more thing in a folder that is not the report's.
      const fs::path runs_folder = fs::absolute(run).lexically_normal().parent_path();
      if (runs_folder.filename() == kRunsFolder && carries_marker(run, kRunMarker) &&
          folders_overlap(runs_folder.parent_path(), options.out_dir))
        throw std::invalid_argument("the output folder " + options.out_dir.string() + " is inside the results root " +
                                    runs_folder.parent_path().string() + " of the run folder " + run.string() +
                                    "; give the fleet report a folder outside every input's results root");
    }
    report = merge_runs(runs, options);
    written = write_fleet_report(report, options.out_dir);
  } catch (const std::invalid_argument& e) {
    err << "hazardlab: " << e.what() << "; no fleet report written\n";
    return 2;
  } catch (const std::exception& e) {
    err << "hazardlab: " << e.what() << "; the fleet report was not (fully) written\n";
    return 1;
  }
  for (const FleetRow& row : report.rows) out << "hazardlab: " << row_line(row) << '\n';
  for (const std::string& note : report.notes) out << "hazardlab: note: " << note << '\n';
  std::string counts;
  for (const auto& [verdict, count] : report.counts()) {
    counts += (counts.empty() ? "" : ", ") + std::to_string(count) + " " + std::string(to_string(verdict));
  }
  out << "hazardlab: " << report.rows.size() << " row(s) from " << report.runs.size() << " run(s): " << counts << '\n';
  for (const fs::path& path : written) out << "hazardlab: wrote " << path.string() << '\n';
  return fleet_exit_status(report);
}

}  // namespace hazardlab
