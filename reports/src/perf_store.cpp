#include "hazardlab/perf_store.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "hazardlab/atomic_file.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {
fs::path perf_dir(const fs::path& results_dir, int device_index) {
  return results_dir / (device_index < 0 ? std::string("nogpu") : "gpu" + std::to_string(device_index)) / "perf";
}
}  // namespace

void to_json(nlohmann::json& j, const PerfRecord& r) {
  j = {{"part", r.part},
       {"profile", r.profile},
       {"device_index", r.device_index},
       {"device_uuid", r.device_uuid},
       {"status", r.status},
       {"reason", r.reason},
       {"measurements", r.measurements},
       {"checks", r.checks},
       {"duration_ms", r.duration_ms}};
}

void from_json(const nlohmann::json& j, PerfRecord& r) {
  j.at("part").get_to(r.part);
  r.profile = j.value("profile", "");
  j.at("device_index").get_to(r.device_index);
  r.device_uuid = j.value("device_uuid", "");
  j.at("status").get_to(r.status);
  r.reason = j.value("reason", "");
  r.measurements = j.value("measurements", nlohmann::json::object());
  r.checks = j.value("checks", std::vector<perf::Check>{});
  r.duration_ms = j.value("duration_ms", 0.0);
}

void store_perf(const fs::path& results_dir, const PerfRecord& r) {
  write_file_atomically(perf_dir(results_dir, r.device_index) / (r.part + ".json"), nlohmann::json(r).dump(2) + "\n");
}

std::vector<PerfRecord> load_perf(const fs::path& results_dir, int device_index) {
  std::vector<PerfRecord> records;
  const fs::path dir = perf_dir(results_dir, device_index);
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
      std::ifstream in(file);
      std::ostringstream text;
      text << in.rdbuf();
      records.push_back(nlohmann::json::parse(text.str()).get<PerfRecord>());
    } catch (const std::exception& e) {
      PerfRecord r;
      r.part = file.stem().string();
      r.device_index = device_index;
      r.status = "failed";
      r.reason = "the result file " + file.filename().string() + " is unreadable: " + e.what();
      records.push_back(r);
    }
  }
  return records;
}

}  // namespace hazardlab
