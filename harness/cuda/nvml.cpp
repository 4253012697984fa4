#include "cuda/nvml.hpp"

#include <dlfcn.h>

#include <mutex>

namespace hazardlab::nvml {
namespace {

// The few NVML entry points used here, declared from the NVML API reference.
using Return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using Device = struct OpaqueDevice*;
constexpr Return kSuccess = 0;

struct Api {
  void* library = nullptr;
  std::string load_error;
  Return (*init)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*handle_by_pci_bus_id)(const char*, Device*) = nullptr;
  Return (*curr_generation)(Device, unsigned*) = nullptr;
  Return (*curr_width)(Device, unsigned*) = nullptr;
  Return (*max_generation)(Device, unsigned*) = nullptr;
  Return (*max_width)(Device, unsigned*) = nullptr;
  Return (*driver_version)(char*, unsigned) = nullptr;
  Return (*set_cpu_affinity)(Device) = nullptr;  // optional: absent or unsupported leaves the thread as it is
  Return (*index)(Device, unsigned*) = nullptr;
  Return (*mig_mode)(Device, unsigned*, unsigned*) = nullptr;  // optional: absent before MIG existed
  bool ready = false;
};

template <typename F>
bool bind(void* library, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(library, name));
  return fn != nullptr;
}

// Loaded once and kept for the process: nvmlShutdown at exit is not needed.
Api& api() {
  static Api a;
  static std::once_flag once;
  std::call_once(once, [] {
    a.library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!a.library) {
      a.load_error = "libnvidia-ml.so.1 could not be loaded (no NVIDIA driver on this machine?)";
      return;
    }
    const bool bound = bind(a.library, "nvmlInit_v2", a.init) && bind(a.library, "nvmlErrorString", a.error_string) &&
                       bind(a.library, "nvmlDeviceGetHandleByPciBusId_v2", a.handle_by_pci_bus_id) &&
                       bind(a.library, "nvmlDeviceGetCurrPcieLinkGeneration", a.curr_generation) &&
                       bind(a.library, "nvmlDeviceGetCurrPcieLinkWidth", a.curr_width) &&
                       bind(a.library, "nvmlDeviceGetMaxPcieLinkGeneration", a.max_generation) &&
                       bind(a.library, "nvmlDeviceGetMaxPcieLinkWidth", a.max_width) &&
                       bind(a.library, "nvmlSystemGetDriverVersion", a.driver_version);
    bind(a.library, "nvmlDeviceSetCpuAffinity", a.set_cpu_affinity);
    bind(a.library, "nvmlDeviceGetIndex", a.index);
    bind(a.library, "nvmlDeviceGetMigMode", a.mig_mode);
    if (!bound) {
      a.load_error = "libnvidia-ml.so.1 lacks an expected entry point";
      return;
    }
    const Return rc = a.init();
    if (rc != kSuccess) {
      a.load_error = std::string("nvmlInit_v2 failed: ") + a.error_string(rc);
      return;
    }
    a.ready = true;
  });
  return a;
}

}  // namespace

PcieLink query_pcie_link(const std::string& pci_bus_id) {
  PcieLink link;
  Api& nv = api();
  if (!nv.ready) {
    link.unavailable_reason = nv.load_error;
    return link;
  }
  Device device = nullptr;
  Return rc = nv.handle_by_pci_bus_id(pci_bus_id.c_str(), &device);
  if (rc != kSuccess) {
    link.unavailable_reason = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + "): " + nv.error_string(rc);
    return link;
  }
  unsigned cg = 0, cw = 0, mg = 0, mw = 0;
  struct Query {
    const char* name;
    Return (*fn)(Device, unsigned*);
    unsigned* out;
  } queries[] = {{"nvmlDeviceGetCurrPcieLinkGeneration", nv.curr_generation, &cg},
                 {"nvmlDeviceGetCurrPcieLinkWidth", nv.curr_width, &cw},
                 {"nvmlDeviceGetMaxPcieLinkGeneration", nv.max_generation, &mg},
                 {"nvmlDeviceGetMaxPcieLinkWidth", nv.max_width, &mw}};
  for (const Query& q : queries) {
    rc = q.fn(device, q.out);
    if (rc != kSuccess) {
      link.unavailable_reason = std::string(q.name) + ": " + nv.error_string(rc);
      return link;
    }
  }
  link.available = true;
  link.current_generation = static_cast<int>(cg);
  link.current_width = static_cast<int>(cw);
  link.max_generation = static_cast<int>(mg);
  link.max_width = static_cast<int>(mw);
  return link;
}

std::string driver_release() {
  Api& nv = api();
  if (!nv.ready) return {};
  char buffer[96] = {};
  if (nv.driver_version(buffer, sizeof buffer) != kSuccess) return {};
  return buffer;
}

}  // namespace hazardlab::nvml

namespace hazardlab::nvml {

std::string bind_thread_to_device_cpus(const std::string& pci_bus_id) {
  Api& nv = api();
  if (!nv.ready) return nv.load_error;
  if (!nv.set_cpu_affinity) return "this NVML has no nvmlDeviceSetCpuAffinity";
  Device device = nullptr;
  Return rc = nv.handle_by_pci_bus_id(pci_bus_id.c_str(), &device);
  if (rc != kSuccess) return "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + "): " + nv.error_string(rc);
  rc = nv.set_cpu_affinity(device);
  if (rc != kSuccess) return std::string("nvmlDeviceSetCpuAffinity: ") + nv.error_string(rc);
  return {};
}

}  // namespace hazardlab::nvml

namespace hazardlab::nvml {

SmiIdentity smi_identity(const std::string& pci_bus_id) {
  SmiIdentity id;
  Api& nv = api();
  Device device = nullptr;
  if (!nv.ready || nv.handle_by_pci_bus_id(pci_bus_id.c_str(), &device) != kSuccess) return id;
  unsigned index = 0, current = 0, pending = 0;
  if (nv.index && nv.index(device, &index) == kSuccess) id.index = static_cast<int>(index);
  // NVML_DEVICE_MIG_ENABLE is 1; a GPU without MIG support answers NOT_SUPPORTED.
  if (nv.mig_mode && nv.mig_mode(device, &current, &pending) == kSuccess) id.mig = current == 1;
  return id;
}

}  // namespace hazardlab::nvml
