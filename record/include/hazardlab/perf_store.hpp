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

// A measurement group: a part that hazardlab-perf runs (--part), its test (gpuN/perf/<group>) and its file
// (<run>/gpuN/perf/<group>.json). to_string is its one spelling.
enum class MeasurementGroup {
  Bandwidth,  // host<->device bandwidth by memory kind and size, beside the reference; timed alone on the host
  Overlap,    // copy-compute overlap; timed alone on the host
  Findings,   // the tutorial's performance claims, each a comparison within the group
  Integrity,  // the health profile's one round of verified copies
  Soak,       // verified copies for a duration
};
// Every group, in the order to_string's spellings are listed (hazardlab-perf --part).
inline constexpr MeasurementGroup kMeasurementGroups[] = {MeasurementGroup::Bandwidth, MeasurementGroup::Overlap,
                                                          MeasurementGroup::Findings, MeasurementGroup::Integrity,
                                                          MeasurementGroup::Soak};
std::string_view to_string(MeasurementGroup g) noexcept;
std::optional<MeasurementGroup> measurement_group_from_string(std::string_view name) noexcept;
// Whether a group's timed part must have the host to itself (harness/perf/host_lock.hpp).
bool timed_alone(MeasurementGroup g) noexcept;

// The measurement groups every GPU gets in a validation run, in the order they run.
inline constexpr MeasurementGroup kPerfParts[] = {MeasurementGroup::Bandwidth, MeasurementGroup::Overlap,
                                                  MeasurementGroup::Findings};

struct PerfRecord {
  MeasurementGroup part = MeasurementGroup::Bandwidth;
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
