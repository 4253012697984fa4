#include "trial/rig.hpp"

#include <stdexcept>

#include "cuda/check.hpp"

namespace hazardlab {

Rig::Rig(std::size_t max_bytes, const DeviceFingerprint& device)
    : max_bytes_(max_bytes),
      info_(device),
      device_(max_bytes),
      readback_(HostMemoryKind::Pinned, max_bytes),
      snapshot_(HostMemoryKind::Pageable, max_bytes) {}

DeviceBuffer& Rig::device_scratch() {
  if (!scratch_) scratch_.emplace(max_bytes_);
  return *scratch_;
}

ByteCensus Rig::census_of_device(const std::byte* device, const TrialCase& c) {
  HL_CUDA(cudaMemcpy(readback_.data(), device, c.bytes, cudaMemcpyDeviceToHost));
  return take_census({readback_.data(), c.bytes}, c.pattern);
}

HostBuffer& Rig::host(HostMemoryKind kind) {
  auto& slot = host_[static_cast<int>(kind)];
  if (!slot) slot.emplace(kind, max_bytes_ + kMaxHostOffset);
  return *slot;
}

void Rig::check_fits(const TrialCase& c) const {
  if (c.bytes == 0 || c.bytes > max_bytes_ || c.host_offset >= kMaxHostOffset) {
    throw std::invalid_argument("case does not fit the rig: " + c.describe());
  }
}

}  // namespace hazardlab
