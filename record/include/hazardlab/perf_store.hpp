#pragma once
// One measurement group's results for one GPU, as stored in the run folder
// (<run>/gpuN/perf/<part>.json) and read back into the report.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hazardlab/measurements.hpp"
#include "hazardlab/perf_check.hpp"

namespace hazardlab {

enum class PerfStatus { Measured, Failed, Skipped };
std::string_view to_string(PerfStatus s) noexcept;
std::optional<PerfStatus> perf_status_from_string(std::string_view name) noexcept;

// The measurement groups every GPU gets, in the order they run.
inline constexpr std::string_view kPerfParts[] = {"bandwidth", "overlap", "findings"};

struct PerfRecord {
  std::string part;     // one of kPerfParts
  std::string profile;  // quick, full
  int device_index = -1;
  std::string device_uuid;
  PerfStatus status = PerfStatus::Failed;
  std::string reason;
  Measurements measurements;  // what the part measured (empty when skipped or failed)
  std::vector<perf::Check> checks;
  double duration_ms = 0;
};

void to_json(nlohmann::json& j, const PerfRecord& r);
void from_json(const nlohmann::json& j, PerfRecord& r);

void store_perf(const std::filesystem::path& run_dir, const PerfRecord& r);
// The perf records of one device (-1: no device); unreadable files become failed records.
std::vector<PerfRecord> load_perf(const std::filesystem::path& run_dir, int device_index);

}  // namespace hazardlab
