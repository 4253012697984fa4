#pragma once
// NVML is loaded at run time (libnvidia-ml.so.1 comes with the driver), so the suite builds
// without NVML headers and still starts on machines that have no driver at all.
#include <string>

#include "cuda/device.hpp"

namespace hazardlab::nvml {

// Fills the PCIe link of the device at `pci_bus_id`; on any failure, leaves available=false and
// says why.
PcieLink query_pcie_link(const std::string& pci_bus_id);

// The driver's release string ("580.95.05"), or "" when NVML is unavailable.
std::string driver_release();

}  // namespace hazardlab::nvml
