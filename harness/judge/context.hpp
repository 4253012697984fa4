#pragma once
// What every judge runs with: the GPU (already current) and the settings.
#include "cuda/device.hpp"
#include "settings/settings.hpp"

namespace hazardlab {

struct RunContext {
  const DeviceFingerprint& device;
  const Settings& settings;
};

}  // namespace hazardlab
