#include "cuda/device.hpp"

#include <dlfcn.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "cuda/check.hpp"
#include "hazardlab/strict_number.hpp"
#include "cuda/nvml.hpp"
#include "hazardlab/environment.hpp"

namespace hazardlab {
namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  HL_CUDA(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char text[64];
  std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

bool driver_library_loadable() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) return false;
  dlclose(handle);
  return true;
}

std::string explain_no_device(cudaError_t rc, int runtime_version) {
  std::ostringstream why;
  if (rc == cudaErrorInsufficientDriver && !driver_library_loadable()) {
    why << "no NVIDIA driver: libcuda.so.1 cannot be loaded on this machine";
  } else if (rc == cudaErrorInsufficientDriver) {
    int driver = 0;
    (void)cudaDriverGetVersion(&driver);
    why << "the NVIDIA driver supports CUDA " << driver / 1000 << '.' << (driver % 1000) / 10
        << " but this build needs CUDA " << runtime_version / 1000 << '.' << (runtime_version % 1000) / 10;
  } else if (rc == cudaErrorNoDevice) {
    why << "the NVIDIA driver is loaded but reports no CUDA device (check CUDA_VISIBLE_DEVICES)";
  } else if (rc == cudaSuccess) {
    why << "cudaGetDeviceCount found 0 devices";
  } else {
    why << "cudaGetDeviceCount failed: " << cudaGetErrorName(rc) << ": " << cudaGetErrorString(rc);
  }
  return why.str();
}

}  // namespace

DeviceFingerprint fingerprint_device(int index) {
  DeviceFingerprint f;
  f.index = index;
  cudaDeviceProp prop{};
  HL_CUDA(cudaGetDeviceProperties(&prop, index));
  f.name = prop.name;
  f.uuid = format_uuid(prop.uuid);
  f.total_memory_bytes = prop.totalGlobalMem;
  char bus[32] = {};
  HL_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, index));
  f.pci_bus_id = bus;
  f.compute_capability_major = attribute(cudaDevAttrComputeCapabilityMajor, index);
  f.compute_capability_minor = attribute(cudaDevAttrComputeCapabilityMinor, index);
  HL_CUDA(cudaDriverGetVersion(&f.driver_version));
  HL_CUDA(cudaRuntimeGetVersion(&f.runtime_version));
  f.multiprocessor_count = attribute(cudaDevAttrMultiProcessorCount, index);
  f.async_engine_count = attribute(cudaDevAttrAsyncEngineCount, index);
  f.concurrent_kernels = attribute(cudaDevAttrConcurrentKernels, index) != 0;
  f.can_map_host_memory = attribute(cudaDevAttrCanMapHostMemory, index) != 0;
  f.unified_addressing = attribute(cudaDevAttrUnifiedAddressing, index) != 0;
  f.integrated = attribute(cudaDevAttrIntegrated, index) != 0;
  f.pageable_memory_access = attribute(cudaDevAttrPageableMemoryAccess, index) != 0;
  f.pageable_memory_access_uses_host_page_tables =
      attribute(cudaDevAttrPageableMemoryAccessUsesHostPageTables, index) != 0;
  f.host_register_supported = attribute(cudaDevAttrHostRegisterSupported, index) != 0;
  f.can_use_host_pointer_for_registered_mem = attribute(cudaDevAttrCanUseHostPointerForRegisteredMem, index) != 0;
  f.memory_pools_supported = attribute(cudaDevAttrMemoryPoolsSupported, index) != 0;
  f.ecc_enabled = attribute(cudaDevAttrEccEnabled, index) != 0;
  f.driver_release = nvml::driver_release();
  f.pcie = nvml::query_pcie_link(f.pci_bus_id);
  const nvml::SmiIdentity smi = nvml::smi_identity(f.pci_bus_id);
  f.nvidia_smi_index = smi.index;
  f.mig = smi.mig;
  return f;
}

std::string use_pci_bus_order() {
  const std::optional<std::string> order = environment_value("CUDA_DEVICE_ORDER");
  std::string warning;
  if (order && *order != "PCI_BUS_ID") {
    warning = std::string("CUDA_DEVICE_ORDER=") + *order +
              ": hazardlab numbers GPUs in PCI bus order, as nvidia-smi does, and uses PCI_BUS_ID";
  }
  ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
  return warning;
}

DeviceInventory discover_devices() {
  DeviceInventory inventory;
  (void)cudaRuntimeGetVersion(&inventory.runtime_version);
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    inventory.no_device_reason = explain_no_device(rc, inventory.runtime_version);
    return inventory;
  }
  (void)cudaDriverGetVersion(&inventory.driver_version);
  for (int i = 0; i < count; ++i) inventory.devices.push_back(fingerprint_device(i));
  return inventory;
}

DeviceChoice choose_device(const std::string& argument) {
  // The argument is checked before any GPU is looked for, so a typo fails the same way on a
  // machine with GPUs and on one without.
  constexpr int kMaxIndex = 1023;
  int index = -1;
  if (argument != "none") {
    try {
      index = static_cast<int>(parse_whole_number(argument, 0, kMaxIndex));
    } catch (const NumberRefused&) {
      throw std::invalid_argument("--device '" + argument + "': expected a GPU index from 0 to " +
                                  std::to_string(kMaxIndex) + " (digits only), or 'none'");
    }
  }
  DeviceInventory inventory = discover_devices();
  if (argument == "none") {
    return {std::nullopt,
            inventory.devices.empty() ? inventory.no_device_reason : "the run was started with --device none"};
  }
  if (index >= static_cast<int>(inventory.devices.size())) {
    throw std::invalid_argument("--device " + std::to_string(index) + ": this machine has " +
                                (inventory.devices.empty()
                                     ? "no usable GPU (" + inventory.no_device_reason +
                                           "); --device none records "
                                           "the cases as skipped"
                                     : std::to_string(inventory.devices.size()) + " GPU(s), 0 to " +
                                           std::to_string(inventory.devices.size() - 1)));
  }
  return {inventory.devices[static_cast<std::size_t>(index)], {}};
}

DeviceScope::DeviceScope(int index) {
  HL_CUDA(cudaGetDevice(&previous_));
  HL_CUDA(cudaSetDevice(index));
}

DeviceScope::~DeviceScope() {
  if (previous_ >= 0) HL_CUDA_WARN(cudaSetDevice(previous_));
}

}  // namespace hazardlab
