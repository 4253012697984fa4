#include "hazardlab/perf_store.hpp"

#include <algorithm>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/results_layout.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {
fs::path perf_dir(const fs::path& run_dir, int device_index) { return device_folder(run_dir, device_index) / "perf"; }
}  // namespace

std::string_view to_string(PerfStatus s) noexcept {
  switch (s) {
    case PerfStatus::Measured:
      return "measured";
    case PerfStatus::Failed:
      return "failed";
    case PerfStatus::Skipped:
      return "skipped";
  }
  return "?";
}

std::optional<PerfStatus> perf_status_from_string(std::string_view name) noexcept {
  for (PerfStatus s : {PerfStatus::Measured, PerfStatus::Failed, PerfStatus::Skipped}) {
    if (to_string(s) == name) return s;
  }
  return std::nullopt;
}

std::string_view to_string(MeasurementGroup g) noexcept {
  switch (g) {
    case MeasurementGroup::Bandwidth: return "bandwidth";
    case MeasurementGroup::Overlap: return "overlap";
    case MeasurementGroup::Findings: return "findings";
    case MeasurementGroup::Integrity: return "integrity";
    case MeasurementGroup::Soak: return "soak";
  }
  return "?";
}

std::optional<MeasurementGroup> measurement_group_from_string(std::string_view name) noexcept {
  for (MeasurementGroup g : kMeasurementGroups) {
    if (to_string(g) == name) return g;
  }
  return std::nullopt;
}

bool timed_alone(MeasurementGroup g) noexcept {
  return g == MeasurementGroup::Bandwidth || g == MeasurementGroup::Overlap;
}

void to_json(nlohmann::json& j, const PerfRecord& r) {
  j = {{"part", std::string(to_string(r.part))},
       {"profile", r.profile},
       {"device_index", r.device_index},
       {"device_uuid", r.device_uuid},
       {"status", std::string(to_string(r.status))},
       {"reason", r.reason},
       {"measurements", r.measurements},
       {"checks", r.checks},
       {"duration_ms", r.duration_ms}};
}

void from_json(const nlohmann::json& j, PerfRecord& r) {
  const std::string part = j.at("part").get<std::string>();
  const auto group = measurement_group_from_string(part);
  if (!group) throw nlohmann::json::other_error::create(501, "unknown measurement group '" + part + "'", &j);
  r.part = *group;
  r.profile = j.value("profile", "");
  j.at("device_index").get_to(r.device_index);
  r.device_uuid = j.value("device_uuid", "");
  const std::string status = j.at("status").get<std::string>();
  const auto parsed = perf_status_from_string(status);
  if (!parsed) throw nlohmann::json::other_error::create(501, "unknown perf status '" + status + "'", &j);
  r.status = *parsed;
  r.reason = j.value("reason", "");
  r.measurements = j.value("measurements", Measurements{});
  r.checks = j.value("checks", std::vector<perf::Check>{});
  r.duration_ms = j.value("duration_ms", 0.0);
}

void store_perf(const fs::path& run_dir, const PerfRecord& r) {
  write_file_atomically(perf_dir(run_dir, r.device_index) / (std::string(to_string(r.part)) + ".json"),
                        nlohmann::json(r).dump(2) + "\n");
}

std::vector<PerfRecord> load_perf(const fs::path& run_dir, int device_index) {
  std::vector<PerfRecord> records;
  const fs::path dir = perf_dir(run_dir, device_index);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return records;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json" && entry.path().filename().string()[0] != '.') {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    try {
      records.push_back(nlohmann::json::parse(read_text_file(file)).get<PerfRecord>());
    } catch (const std::exception& e) {
      // A file named after no group is none of hazardlab's: a group it misses is reported as not run.
      const auto group = measurement_group_from_string(file.stem().string());
      if (!group) continue;
      PerfRecord r;
      r.part = *group;
      r.device_index = device_index;
      r.status = PerfStatus::Failed;
      r.reason = "the result file " + file.filename().string() + " is unreadable: " + e.what();
      records.push_back(r);
    }
  }
  return records;
}

}  // namespace hazardlab
