#include "lesson/hazard.hpp"

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

}  // namespace hazardlab
