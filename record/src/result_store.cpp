#include "hazardlab/result_store.hpp"

#include <algorithm>
#include <stdexcept>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/results_layout.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {
constexpr std::string_view kSeparator = "--";

template <typename T>
T load_json_file(const fs::path& path, const char* what) {
  try {
    return nlohmann::json::parse(read_text_file(path)).get<T>();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("cannot read the ") + what + " " + path.string() + ": " + e.what());
  }
}

// A result file's name says which case it was: <device label>/<hazard>--<variant>.json.
bool case_of_file(const fs::path& file, VariantResult& r) {
  const std::string stem = file.stem().string();
  const auto sep = stem.find(kSeparator);
  const int device = device_index_of_label(file.parent_path().filename().string());
  if (sep == std::string::npos || device < -1) return false;
  r.hazard_id = stem.substr(0, sep);
  r.variant_id = stem.substr(sep + kSeparator.size());
  r.device_index = device;
  return true;
}
}  // namespace

fs::path result_path(const fs::path& run_dir, const VariantResult& r) {
  return device_folder(run_dir, r.device_index) / (r.hazard_id + std::string(kSeparator) + r.variant_id + ".json");
}

void store_result(const fs::path& run_dir, const VariantResult& r) {
  write_file_atomically(result_path(run_dir, r), nlohmann::json(r).dump(2) + "\n");
}

LoadedResults load_results(const fs::path& run_dir) {
  LoadedResults loaded;
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return loaded;
  std::vector<fs::path> files;
  for (const auto& folder : fs::directory_iterator(run_dir)) {
    if (!folder.is_directory() || device_index_of_label(folder.path().filename().string()) < -1) continue;
    for (const auto& entry : fs::directory_iterator(folder.path())) {
      const fs::path& p = entry.path();
      if (entry.is_regular_file() && p.extension() == ".json" && p.filename().string().front() != '.') {
        files.push_back(p);
      }
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    VariantResult named;
    try {
      VariantResult r = nlohmann::json::parse(read_text_file(file)).get<VariantResult>();
      if (const std::string why = impossible_content(r); !why.empty()) {
        r.reason = "the result file " + file.filename().string() + " cannot be true, so it is not counted: " + why +
                   (r.reason.empty() ? "" : " (it said: " + r.reason + ")");
        r.outcome = Outcome::Failed;
      }
      loaded.results.push_back(std::move(r));
    } catch (const std::exception& e) {
      // Keep the case in the report as failed, if its name says which case it was.
      if (!case_of_file(file, named)) {
        loaded.unreadable.push_back(file.string() + ": " + e.what());
        continue;
      }
      named.outcome = Outcome::Failed;
      named.reason = "the result file " + file.filename().string() + " is unreadable: " + e.what();
      loaded.results.push_back(named);
    }
  }
  return loaded;
}

void store_inventory(const fs::path& run_dir, const DeviceInventory& inventory) {
  write_file_atomically(run_dir / kInventoryFile, nlohmann::json(inventory).dump(2) + "\n");
}

DeviceInventory load_inventory(const fs::path& run_dir) {
  return load_json_file<DeviceInventory>(run_dir / kInventoryFile, "device inventory");
}

void store_catalog(const fs::path& run_dir, const Catalog& catalog) {
  write_file_atomically(run_dir / kCatalogFile, nlohmann::json(catalog).dump(2) + "\n");
}

Catalog load_catalog(const fs::path& run_dir) { return load_json_file<Catalog>(run_dir / kCatalogFile, "catalogue"); }

}  // namespace hazardlab
