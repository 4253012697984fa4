#pragma once
// The buffers a variant's trials share: allocated once at the largest size the variant runs, so
// that a hundred trials do not pay for a hundred allocations.
#include <cstddef>
#include <optional>
#include <span>

#include "cuda/device.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/host_memory.hpp"
#include "trial/case.hpp"
#include "trial/patterns.hpp"

namespace hazardlab {

class Rig {
 public:
  Rig(std::size_t max_bytes, const DeviceFingerprint& device);
  std::size_t max_bytes() const noexcept { return max_bytes_; }
  const DeviceFingerprint& device_info() const noexcept { return info_; }
  HostBuffer& host(HostMemoryKind kind);
  // The case's bytes at its host offset, in the host buffer of the case's memory kind (or `kind`).
  std::span<std::byte> host_region(const TrialCase& c) { return host_region(c.host_kind, c); }
  std::span<std::byte> host_region(HostMemoryKind kind, const TrialCase& c) {
    return host(kind).span().subspan(c.host_offset, c.bytes);
  }
  DeviceBuffer& device() { return device_; }
  HostBuffer& readback() { return readback_; }  // pinned: verifies what the device holds
  HostBuffer& snapshot() { return snapshot_; }  // pageable: what the host read too early
  DeviceBuffer& device_scratch();               // a second device buffer, allocated on first use
  // Reads `c.bytes` of device memory back (after everything that wrote it has finished) and says
  // which of the case's pattern versions each byte came from.
  ByteCensus census_of_device(const std::byte* device, const TrialCase& c);
  // Throws std::invalid_argument when the case does not fit the rig's buffers.
  void check_fits(const TrialCase& c) const;

 private:
  std::size_t max_bytes_;
  DeviceFingerprint info_;
  DeviceBuffer device_;
  HostBuffer readback_;
  HostBuffer snapshot_;
  std::optional<DeviceBuffer> scratch_;
  std::optional<HostBuffer> host_[6];
};

// How far past a page boundary a case's host side may start.
inline constexpr std::size_t kMaxHostOffset = 4096;

}  // namespace hazardlab
