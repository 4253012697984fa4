#include "hazardlab/own_files.hpp"

#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "hazardlab/perf_store.hpp"
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

// What the folder being walked says of itself, read once: a name alone proves nothing (a user may call a file
// gpu3.md or x--y.json), so each file is checked against what hazardlab's writer put there.
struct Proof {
  fs::path top;
  std::optional<std::set<std::string>> case_names;  // "<hazard>--<variant>" of the run's catalog.json
  std::optional<std::set<std::string>> report_stems;  // the GPUs a report set's run.json gives verdicts for

  static nlohmann::json parsed(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return nlohmann::json::parse(in, nullptr, false);
  }
  // A case of the run: the catalog hazardlab wrote when the run started names it.
  bool is_case(const std::string& name) {
    if (!case_names) {
      case_names.emplace();
      const nlohmann::json catalog = parsed(top / kCatalogFile);
      if (catalog.is_object() && catalog.contains("hazards") && catalog["hazards"].is_array())
        for (const nlohmann::json& h : catalog["hazards"])
          if (h.is_object() && h.value("id", "") != "" && h.contains("variants") && h["variants"].is_array())
            for (const nlohmann::json& v : h["variants"])
              if (v.is_object()) case_names->insert(h.value("id", "") + "--" + v.value("id", ""));
    }
    return case_names->contains(name);
  }
  // A GPU the reported run has: publish_reports writes a gpuN.* set for each key of the record's verdicts.
  bool is_reported_gpu(const std::string& stem) {
    if (!report_stems) {
      report_stems.emplace();
      const nlohmann::json run = parsed(top / kRunRecordFile);
      if (run.is_object() && run.contains("verdicts") && run["verdicts"].is_object())
        for (const auto& [label, verdict] : run["verdicts"].items()) report_stems->insert(label);
    }
    return report_stems->contains(stem);
  }
};

// A case's result (store_result): its JSON names the hazard and the variant its file is named after.
bool own_result(const fs::path& file, std::string_view name) {
  const nlohmann::json j = Proof::parsed(file);
  if (!j.is_object() || !j.contains("hazard") || !j.contains("variant") || !j["hazard"].is_string() ||
      !j["variant"].is_string())
    return false;
  return name == j["hazard"].get<std::string>() + "--" + j["variant"].get<std::string>() + ".json";
}

// A measurement group's record (store_perf): <part>.json whose "part" is that group.
bool own_measurement(const fs::path& file, std::string_view name) {
  if (!ends_with(name, ".json")) return false;
  const std::string part(name.substr(0, name.size() - 5));
  if (!measurement_group_from_string(part)) return false;
  const nlohmann::json j = Proof::parsed(file);
  return j.is_object() && j.contains("part") && j["part"] == part;
}

// A case's or a measurement group's log (harness/plan/run_plan.cpp): <hazard>--<variant>.log for a case of the
// run, perf--<part>.log for a measurement group.
bool own_case_log(std::string_view name, Proof& proof) {
  if (!ends_with(name, ".log")) return false;
  const std::string stem(name.substr(0, name.size() - 4));
  if (stem.starts_with("perf--") && measurement_group_from_string(std::string_view(stem).substr(6))) return true;
  return proof.is_case(stem);
}

bool own_report_file(std::string_view name, Proof& proof) {
  for (std::string_view kind : std::array<std::string_view, 4>{".junit.xml", ".json", ".md", ".html"}) {
    const std::string_view stem = name.substr(0, name.size() - kind.size());
    if (ends_with(name, kind) && is_device_label(stem) && proof.is_reported_gpu(std::string(stem))) return true;
  }
  return false;
}

// Whether hazardlab writes an entry `name` (a plain file, or a folder) at `level`; `inner` is a folder's level.
bool own_entry(Level level, const fs::path& path, bool file, bool folder, std::string_view marker, Level& inner,
               Proof& proof) {
  const std::string name = path.filename().string();
  if (file && name == marker) return true;
  switch (level) {
    case Level::RunFolder:
      if (file) return name == kRunRecordFile || name == kCatalogFile || name == kInventoryFile;
      inner = name == "logs" ? Level::Logs : Level::Results;
      return folder && (name == "logs" || is_device_label(name));
    case Level::Results:
      inner = Level::Measurements;
      return file ? own_result(path, name) : folder && name == "perf";
    case Level::Measurements:
      return file && own_measurement(path, name);
    case Level::Logs:
      inner = Level::CaseLogs;
      return folder && is_device_label(name);
    case Level::CaseLogs:
      return file && own_case_log(name, proof);
    case Level::ReportSet:
      return file && (name == kRunRecordFile || own_report_file(name, proof));
    case Level::MarkerOnly:
      return false;
  }
  return false;
}

// A file being written into place at this moment by write_file_atomically: ".<name>.tmp.<pid>", where <name> is
// a file hazardlab writes at that level. Any other ".x.tmp.N" (a user's, an editor's) is not hazardlab's.
bool own_temporary(Level level, const fs::path& path, Proof& proof) {
  const std::string name = path.filename().string();
  const std::size_t tmp = name.rfind(".tmp.");
  if (name.size() < 2 || name.front() != '.' || tmp == std::string::npos || tmp + 5 >= name.size() ||
      name.find_first_not_of("0123456789", tmp + 5) != std::string::npos)
    return false;
  const std::string written = name.substr(1, tmp - 1);
  // A result's or a measurement's contents are not whole yet: its name must be a case's or a group's.
  if ((level == Level::Results || level == Level::Measurements) && !ends_with(written, ".json")) return false;
  const std::string stem = written.substr(0, written.size() - 5);
  if (level == Level::Results) return proof.is_case(stem);
  if (level == Level::Measurements) return measurement_group_from_string(stem).has_value();
  Level unused = Level::MarkerOnly;
  return !written.empty() && own_entry(level, path.parent_path() / written, true, false, "", unused, proof);
}

std::string walk(const fs::path& folder, Level level, std::string_view marker, const fs::path& shown, Proof& proof) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    const fs::file_status status = entry.symlink_status(ec);
    const bool file = fs::is_regular_file(status), dir = fs::is_directory(status);
    if (file && own_temporary(level, entry.path(), proof)) continue;
    Level inner = Level::MarkerOnly;
    if (ec || !own_entry(level, entry.path(), file, dir, shown.empty() ? marker : "", inner, proof))
      return (shown / name).string();
    if (dir) {
      if (std::string foreign = walk(entry.path(), inner, marker, shown / name, proof); !foreign.empty())
        return foreign;
    }
  }
  return ec ? (shown.empty() ? fs::path(".") : shown).string() : "";
}

}  // namespace

std::string first_foreign_entry(const fs::path& folder, std::string_view marker) {
  const Level top = marker == kRunMarker         ? Level::RunFolder
                    : marker == kReportSetMarker ? Level::ReportSet
                                                 : Level::MarkerOnly;
  Proof proof{folder, std::nullopt, std::nullopt};
  return walk(folder, top, marker, fs::path(), proof);
}

}  // namespace hazardlab
