#include "hazardlab/result_store.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "hazardlab/atomic_file.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {
constexpr const char* kInventoryFile = "inventory.json";
constexpr const char* kSeparator = "--";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string device_folder(int device_index) {
  return device_index < 0 ? std::string("nogpu") : "gpu" + std::to_string(device_index);
}
}  // namespace

void to_json(nlohmann::json& j, const DeviceFingerprint& d) {
  j = nlohmann::json{{"index", d.index},
                     {"name", d.name},
                     {"uuid", d.uuid},
                     {"pci_bus_id", d.pci_bus_id},
                     {"compute_capability", d.compute_capability()},
                     {"driver_version", d.driver_version},
                     {"driver_release", d.driver_release},
                     {"runtime_version", d.runtime_version},
                     {"total_memory_bytes", d.total_memory_bytes},
                     {"multiprocessor_count", d.multiprocessor_count},
                     {"async_engine_count", d.async_engine_count},
                     {"concurrent_kernels", d.concurrent_kernels},
                     {"can_map_host_memory", d.can_map_host_memory},
                     {"unified_addressing", d.unified_addressing},
                     {"integrated", d.integrated},
                     {"pageable_memory_access", d.pageable_memory_access},
                     {"pageable_memory_access_uses_host_page_tables", d.pageable_memory_access_uses_host_page_tables},
                     {"host_register_supported", d.host_register_supported},
                     {"can_use_host_pointer_for_registered_mem", d.can_use_host_pointer_for_registered_mem},
                     {"memory_pools_supported", d.memory_pools_supported},
                     {"ecc_enabled", d.ecc_enabled},
                     {"pcie",
                      {{"available", d.pcie.available},
                       {"unavailable_reason", d.pcie.unavailable_reason},
                       {"current_generation", d.pcie.current_generation},
                       {"current_width", d.pcie.current_width},
                       {"max_generation", d.pcie.max_generation},
                       {"max_width", d.pcie.max_width},
                       {"max_raw_gbps_per_direction", d.pcie.max_raw_gbps_per_direction()}}}};
}

void from_json(const nlohmann::json& j, DeviceFingerprint& d) {
  j.at("index").get_to(d.index);
  j.at("name").get_to(d.name);
  j.at("uuid").get_to(d.uuid);
  j.at("pci_bus_id").get_to(d.pci_bus_id);
  const std::string cc = j.at("compute_capability").get<std::string>();
  const auto dot = cc.find('.');
  if (dot == std::string::npos) throw std::runtime_error("malformed compute_capability '" + cc + "'");
  d.compute_capability_major = std::stoi(cc.substr(0, dot));
  d.compute_capability_minor = std::stoi(cc.substr(dot + 1));
  j.at("driver_version").get_to(d.driver_version);
  d.driver_release = j.value("driver_release", "");
  j.at("runtime_version").get_to(d.runtime_version);
  d.total_memory_bytes = j.value("total_memory_bytes", std::size_t{0});
  d.multiprocessor_count = j.value("multiprocessor_count", 0);
  j.at("async_engine_count").get_to(d.async_engine_count);
  j.at("concurrent_kernels").get_to(d.concurrent_kernels);
  j.at("can_map_host_memory").get_to(d.can_map_host_memory);
  j.at("unified_addressing").get_to(d.unified_addressing);
  j.at("integrated").get_to(d.integrated);
  j.at("pageable_memory_access").get_to(d.pageable_memory_access);
  d.pageable_memory_access_uses_host_page_tables = j.value("pageable_memory_access_uses_host_page_tables", false);
  j.at("host_register_supported").get_to(d.host_register_supported);
  d.can_use_host_pointer_for_registered_mem = j.value("can_use_host_pointer_for_registered_mem", false);
  d.memory_pools_supported = j.value("memory_pools_supported", false);
  d.ecc_enabled = j.value("ecc_enabled", false);
  const auto& p = j.at("pcie");
  p.at("available").get_to(d.pcie.available);
  d.pcie.unavailable_reason = p.value("unavailable_reason", "");
  d.pcie.current_generation = p.value("current_generation", 0);
  d.pcie.current_width = p.value("current_width", 0);
  d.pcie.max_generation = p.value("max_generation", 0);
  d.pcie.max_width = p.value("max_width", 0);
}

fs::path result_path(const fs::path& results_dir, const VariantResult& r) {
  return results_dir / device_folder(r.device_index) / (r.hazard_id + kSeparator + r.variant_id + ".json");
}

void store_result(const fs::path& results_dir, const VariantResult& r) {
  write_file_atomically(result_path(results_dir, r), nlohmann::json(r).dump(2) + "\n");
}

LoadedResults load_results(const fs::path& results_dir) {
  LoadedResults loaded;
  std::error_code ec;
  if (!fs::is_directory(results_dir, ec)) return loaded;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(results_dir)) {
    const fs::path& p = entry.path();
    if (p.parent_path().filename() == "perf") continue;  // performance records: perf_store.hpp
    if (entry.is_regular_file() && p.extension() == ".json" && p.filename() != kInventoryFile &&
        p.filename().string().front() != '.') {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    try {
      loaded.results.push_back(nlohmann::json::parse(read_text(file)).get<VariantResult>());
    } catch (const std::exception& e) {
      // Keep the case in the report as failed, if its name says which case it was.
      const std::string stem = file.stem().string();
      const std::string folder = file.parent_path().filename().string();
      const auto sep = stem.find(kSeparator);
      if (sep == std::string::npos || (folder != "nogpu" && folder.rfind("gpu", 0) != 0)) {
        loaded.unreadable.push_back(file.string() + ": " + e.what());
        continue;
      }
      VariantResult r;
      r.hazard_id = stem.substr(0, sep);
      r.variant_id = stem.substr(sep + 2);
      r.device_index = folder == "nogpu" ? -1 : std::atoi(folder.c_str() + 3);
      r.outcome = Outcome::Failed;
      r.reason = "the result file " + file.filename().string() + " is unreadable: " + e.what();
      loaded.results.push_back(r);
    }
  }
  return loaded;
}

void store_inventory(const fs::path& results_dir, const DeviceInventory& inventory) {
  const nlohmann::json j{{"runtime_version", inventory.runtime_version},
                         {"driver_version", inventory.driver_version},
                         {"no_device_reason", inventory.no_device_reason},
                         {"devices", inventory.devices}};
  write_file_atomically(results_dir / kInventoryFile, j.dump(2) + "\n");
}

DeviceInventory load_inventory(const fs::path& results_dir) {
  const fs::path path = results_dir / kInventoryFile;
  try {
    const auto j = nlohmann::json::parse(read_text(path));
    DeviceInventory inventory;
    j.at("runtime_version").get_to(inventory.runtime_version);
    j.at("driver_version").get_to(inventory.driver_version);
    j.at("no_device_reason").get_to(inventory.no_device_reason);
    j.at("devices").get_to(inventory.devices);
    return inventory;
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot read the device inventory " + path.string() + ": " + e.what());
  }
}

}  // namespace hazardlab
