#include "hazardlab/device_fingerprint.hpp"

#include <stdexcept>

namespace hazardlab {

double PcieLink::max_raw_gbps_per_direction() const noexcept {
  // GB/s per lane after line coding: Gen1/2 8b/10b; Gen3-5 128b/130b; Gen6 PAM4 with FLIT (242/256).
  static constexpr double kPerLane[] = {0, 0.25, 0.5, 0.9846, 1.9692, 3.9385, 7.5625};
  if (!available || max_generation < 1 || max_generation > 6) return 0;
  return kPerLane[max_generation] * max_width;
}

std::string DeviceFingerprint::compute_capability() const {
  return std::to_string(compute_capability_major) + "." + std::to_string(compute_capability_minor);
}

void to_json(nlohmann::json& j, const DeviceFingerprint& d) {
  j = nlohmann::json{{"index", d.index},
                     {"name", d.name},
                     {"uuid", d.uuid},
                     {"pci_bus_id", d.pci_bus_id},
                     {"nvidia_smi_index", d.nvidia_smi_index},
                     {"mig", d.mig},
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
  d.nvidia_smi_index = j.value("nvidia_smi_index", -1);
  d.mig = j.value("mig", false);
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

void to_json(nlohmann::json& j, const DeviceInventory& inventory) {
  j = {{"runtime_version", inventory.runtime_version},
       {"driver_version", inventory.driver_version},
       {"no_device_reason", inventory.no_device_reason},
       {"devices", inventory.devices}};
}

void from_json(const nlohmann::json& j, DeviceInventory& inventory) {
  j.at("runtime_version").get_to(inventory.runtime_version);
  j.at("driver_version").get_to(inventory.driver_version);
  j.at("no_device_reason").get_to(inventory.no_device_reason);
  j.at("devices").get_to(inventory.devices);
}

}  // namespace hazardlab
