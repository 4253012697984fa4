#pragma once
// The case results, catalogue and device inventory of one run folder (results_layout.hpp).
#include <filesystem>
#include <string>
#include <vector>

#include "hazardlab/catalog.hpp"
#include "hazardlab/device_fingerprint.hpp"
#include "hazardlab/result.hpp"

namespace hazardlab {

std::filesystem::path result_path(const std::filesystem::path& run_dir, const VariantResult& r);
void store_result(const std::filesystem::path& run_dir, const VariantResult& r);

// Every result file of a run. A file that cannot be read, or whose content cannot be true
// (impossible_content), becomes a Failed result that says so, unless its hazard and variant
// cannot be told from its name either; then it is listed in `unreadable`.
struct LoadedResults {
  std::vector<VariantResult> results;
  std::vector<std::string> unreadable;
};
LoadedResults load_results(const std::filesystem::path& run_dir);

void store_inventory(const std::filesystem::path& run_dir, const DeviceInventory& inventory);
DeviceInventory load_inventory(const std::filesystem::path& run_dir);  // throws std::runtime_error

void store_catalog(const std::filesystem::path& run_dir, const Catalog& catalog);
Catalog load_catalog(const std::filesystem::path& run_dir);  // throws std::runtime_error

}  // namespace hazardlab
