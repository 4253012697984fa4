#pragma once
// NVML is loaded at run time (libnvidia-ml.so.1 comes with the driver), so the suite builds
// without NVML headers and still starts on machines that have no driver at all.
#include <string>

#include "cuda/device.hpp"

namespace hazardlab::nvml {

// Fills the PCIe link of the device at `pci_bus_id`; on any failure, leaves available=false and
// says why.
PcieLink query_pcie_link(const std::string& pci_bus_id);

// How nvidia-smi names the GPU at `pci_bus_id`: its NVML index (-1 when NVML cannot tell) and
// whether MIG mode is on (then CUDA's devices on it are MIG instances, not the whole GPU).
struct SmiIdentity {
  int index = -1;
  bool mig = false;
};
SmiIdentity smi_identity(const std::string& pci_bus_id);

// The driver's release string ("580.95.05"), or "" when NVML is unavailable.
std::string driver_release();

// Binds the calling thread to the CPUs NVML names as closest to the device (its NUMA node), as
// NVIDIA's nvbandwidth does before allocating host memory; memory the thread then touches first
// is placed on that node. Returns "" on success, else why not (the thread is left as it was).
std::string bind_thread_to_device_cpus(const std::string& pci_bus_id);

}  // namespace hazardlab::nvml
