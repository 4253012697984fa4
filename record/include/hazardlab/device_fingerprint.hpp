#pragma once
// What a GPU is and can do, as recorded in a run: plain data with no CUDA in it. The harness
// fills it in (device.hpp); the record and the reports only read it.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hazardlab {

// PCIe link as NVML reports it. Idle GPUs often train down to a lower generation, so both
// the current and the maximum link are kept.
struct PcieLink {
  bool available = false;
  std::string unavailable_reason;  // why NVML could not tell, when !available
  int current_generation = 0;
  int current_width = 0;
  int max_generation = 0;
  int max_width = 0;
  // Raw signalling rate of the maximum link per direction in GB/s (after line coding), 0 if unknown.
  double max_raw_gbps_per_direction() const noexcept;
};

struct DeviceFingerprint {
  int index = -1;
  std::string name;
  std::string uuid;           // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::string pci_bus_id;     // "0000:17:00.0"
  int nvidia_smi_index = -1;  // NVML's index, the one nvidia-smi shows; -1 without NVML
  bool mig = false;           // a MIG instance, not a whole GPU
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int driver_version = 0;      // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;     // cudaRuntimeGetVersion
  std::string driver_release;  // NVML's "580.95.05", empty without NVML
  std::size_t total_memory_bytes = 0;
  int multiprocessor_count = 0;
  int async_engine_count = 0;
  bool concurrent_kernels = false;
  bool can_map_host_memory = false;
  bool unified_addressing = false;
  bool integrated = false;
  bool pageable_memory_access = false;
  bool pageable_memory_access_uses_host_page_tables = false;
  bool host_register_supported = false;
  bool can_use_host_pointer_for_registered_mem = false;
  bool memory_pools_supported = false;
  bool ecc_enabled = false;
  PcieLink pcie;

  std::string compute_capability() const;
};

struct DeviceInventory {
  std::vector<DeviceFingerprint> devices;
  int runtime_version = 0;
  int driver_version = 0;  // 0 when no driver could be loaded
  // Why no device is usable, in words a person can act on; empty when devices were found.
  std::string no_device_reason;
};

void to_json(nlohmann::json& j, const DeviceFingerprint& d);
void from_json(const nlohmann::json& j, DeviceFingerprint& d);
void to_json(nlohmann::json& j, const DeviceInventory& inventory);
void from_json(const nlohmann::json& j, DeviceInventory& inventory);

}  // namespace hazardlab
