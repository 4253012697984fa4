#pragma once
// Which GPUs this process can see, what each one can do, and a scope that makes one of them
// current.
#include <optional>
#include <string>
#include <vector>

#include "hazardlab/device_fingerprint.hpp"

namespace hazardlab {

// GPUs numbered as nvidia-smi numbers them: sets CUDA_DEVICE_ORDER=PCI_BUS_ID for this process
// and every process it starts, before CUDA is first used (CUDA's default order puts the fastest
// GPU first, so its ordinals differ from nvidia-smi's on mixed hosts). Returns a warning when the
// environment asked for another order, else "".
std::string use_pci_bus_order();

// Never throws for "no driver" or "no device": those end up in no_device_reason.
DeviceInventory discover_devices();
DeviceFingerprint fingerprint_device(int index);

// What a runner's --device argument selects: one GPU of this machine, or none, with the reason.
struct DeviceChoice {
  std::optional<DeviceFingerprint> device;
  std::string no_device_reason;  // set when there is no device
};

// Resolves "none" or a GPU index against this machine's devices. "none" gives no device and the
// reason. Throws std::invalid_argument, with a message for the user, for any other text (checked
// before the GPUs are looked for) and for an index the machine does not have (on a machine
// without a usable GPU, any index).
DeviceChoice choose_device(const std::string& argument);

// Makes `index` the current device for the scope's lifetime.
class DeviceScope {
 public:
  explicit DeviceScope(int index);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace hazardlab
