#include "hazard/hazard.hpp"

namespace hazardlab {

const Variant* Hazard::find_variant(std::string_view variant_id) const {
  for (const Variant& v : variants) {
    if (v.id == variant_id) return &v;
  }
  return nullptr;
}

std::string Hazard::unmet_requirement(const DeviceFingerprint& device) const {
  for (const Requirement& r : requirements) {
    if (std::string why = r.unmet(device); !why.empty()) return why;
  }
  return {};
}

Requirement requires_can_map_host_memory() {
  return {"canMapHostMemory = 1", [](const DeviceFingerprint& d) {
            return d.can_map_host_memory ? std::string() : std::string("the device cannot map host memory");
          }};
}

Requirement requires_host_register() {
  return {"hostRegisterSupported = 1", [](const DeviceFingerprint& d) {
            return d.host_register_supported ? std::string()
                                             : std::string("the device does not support cudaHostRegister");
          }};
}

// The device fingerprint does not record concurrentManagedAccess, so the requirement asks the
// device itself. Requirements are checked in the case's process, where CUDA is already up.
Requirement requires_concurrent_managed_access(std::string without_it) {
  return {"concurrentManagedAccess = 1", [without_it = std::move(without_it)](const DeviceFingerprint& d) {
            int value = 0;
            try {
              HL_CUDA(cudaDeviceGetAttribute(&value, cudaDevAttrConcurrentManagedAccess, d.index));
            } catch (const CudaError& e) {
              return std::string("concurrentManagedAccess could not be read: ") + e.what();
            }
            return value ? std::string() : "the device reports concurrentManagedAccess = 0: " + without_it;
          }};
}

}  // namespace hazardlab
