#include "hazardlab/own_files.hpp"

#include <array>

#include "hazardlab/results_layout.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

// Where in a run folder or a report set an entry lies; each level holds its own names.
enum class Level {
  RunFolder,     // .hazardlab-run, run.json, catalog.json, inventory.json, gpu<N>/, logs/
  Results,       // gpu<N>/<hazard>--<variant>.json, perf/
  Measurements,  // gpu<N>/perf/<part>.json
  Logs,          // logs/gpu<N>/
  CaseLogs,      // logs/gpu<N>/<hazard>--<variant>.log
  ReportSet,     // .hazardlab-report-set, run.json, gpu<N>.json .md .html .junit.xml
  MarkerOnly,
};

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() > tail.size() && text.substr(text.size() - tail.size()) == tail;
}

bool is_device_label(std::string_view name) { return device_index_of_label(name) != -2; }

// A file being written into place at this moment (write_file_atomically): ".<name>.tmp.<pid>".
bool own_temporary(std::string_view name) {
  const std::size_t tmp = name.rfind(".tmp.");
  return name.size() > 1 && name.front() == '.' && tmp != std::string_view::npos && tmp + 5 < name.size() &&
         name.find_first_not_of("0123456789", tmp + 5) == std::string_view::npos;
}

bool own_report_file(std::string_view name) {
  for (std::string_view kind : std::array<std::string_view, 4>{".junit.xml", ".json", ".md", ".html"}) {
    if (ends_with(name, kind) && is_device_label(name.substr(0, name.size() - kind.size()))) return true;
  }
  return false;
}

// Whether hazardlab writes an entry `name` (a plain file, or a folder) at `level`; `inner` is a folder's level.
bool own_entry(Level level, std::string_view name, bool file, bool folder, std::string_view marker, Level& inner) {
  if (file && name == marker) return true;
  switch (level) {
    case Level::RunFolder:
      if (file) return name == kRunRecordFile || name == kCatalogFile || name == kInventoryFile;
      inner = name == "logs" ? Level::Logs : Level::Results;
      return folder && (name == "logs" || is_device_label(name));
    case Level::Results:
      inner = Level::Measurements;
      return file ? ends_with(name, ".json") && name.find("--") != std::string_view::npos : folder && name == "perf";
    case Level::Measurements:
      return file && ends_with(name, ".json");
    case Level::Logs:
      inner = Level::CaseLogs;
      return folder && is_device_label(name);
    case Level::CaseLogs:
      return file && ends_with(name, ".log");
    case Level::ReportSet:
      return file && (name == kRunRecordFile || own_report_file(name));
    case Level::MarkerOnly:
      return false;
  }
  return false;
}

std::string walk(const fs::path& folder, Level level, std::string_view marker, const fs::path& shown) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    const fs::file_status status = entry.symlink_status(ec);
    const bool file = fs::is_regular_file(status), dir = fs::is_directory(status);
    if (file && own_temporary(name)) continue;
    Level inner = Level::MarkerOnly;
    if (ec || !own_entry(level, name, file, dir, shown.empty() ? marker : "", inner))
      return (shown / name).string();
    if (dir) {
      if (std::string foreign = walk(entry.path(), inner, marker, shown / name); !foreign.empty()) return foreign;
    }
  }
  return ec ? (shown.empty() ? fs::path(".") : shown).string() : "";
}

}  // namespace

std::string first_foreign_entry(const fs::path& folder, std::string_view marker) {
  const Level top = marker == kRunMarker         ? Level::RunFolder
                    : marker == kReportSetMarker ? Level::ReportSet
                                                 : Level::MarkerOnly;
  return walk(folder, top, marker, fs::path());
}

}  // namespace hazardlab
