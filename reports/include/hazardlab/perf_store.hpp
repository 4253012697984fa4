#pragma once
// One measurement group's results for one GPU, as stored in the results directory
// (<results>/gpuN/perf/<part>.json) and read back into the report.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hazardlab/checks.hpp"

namespace hazardlab {

struct PerfRecord {
  std::string part;     // bandwidth, overlap, findings
  std::string profile;  // quick, full
  int device_index = -1;
  std::string device_uuid;
  std::string status = "failed";  // measured, failed, skipped
  std::string reason;
  nlohmann::json measurements = nlohmann::json::object();
  std::vector<perf::Check> checks;
  double duration_ms = 0;
};

void to_json(nlohmann::json& j, const PerfRecord& r);
void from_json(const nlohmann::json& j, PerfRecord& r);

void store_perf(const std::filesystem::path& results_dir, const PerfRecord& r);
// The perf records of one device (-1: no device); unreadable files become failed records.
std::vector<PerfRecord> load_perf(const std::filesystem::path& results_dir, int device_index);

}  // namespace hazardlab
