#pragma once
// The results directory of a run: each case leaves one JSON file per variant and GPU there, and
// the session start leaves the device inventory. The report is built from this directory alone.
#include <filesystem>
#include <string>
#include <vector>

#include "hazardlab/device.hpp"
#include "hazardlab/result.hpp"

namespace hazardlab {

std::filesystem::path result_path(const std::filesystem::path& results_dir, const VariantResult& r);
void store_result(const std::filesystem::path& results_dir, const VariantResult& r);

// Every result file under `results_dir`. A file that cannot be read becomes a Failed result that
// says so, unless its hazard and variant cannot be told from its name either; then it is listed in
// `unreadable`.
struct LoadedResults {
  std::vector<VariantResult> results;
  std::vector<std::string> unreadable;
};
LoadedResults load_results(const std::filesystem::path& results_dir);

void store_inventory(const std::filesystem::path& results_dir, const DeviceInventory& inventory);
// Throws std::runtime_error if the file is missing or malformed.
DeviceInventory load_inventory(const std::filesystem::path& results_dir);

void to_json(nlohmann::json& j, const DeviceFingerprint& d);
void from_json(const nlohmann::json& j, DeviceFingerprint& d);

}  // namespace hazardlab
