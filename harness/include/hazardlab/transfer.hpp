#pragma once
// The two transfer scenarios behind the seed hazards, written step by step. A trial fills the
// buffers, closes a gate on the stream, issues the copy, runs the fence under test, does the
// damage (rewrite the source, or read the destination), opens the gate and then looks at what
// arrived. With no fence the damage lands while the copy is still held back by the gate, so the
// hazard shows every time; with a correct fence it never can.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hazardlab/device.hpp"
#include "hazardlab/device_memory.hpp"
#include "hazardlab/fence.hpp"
#include "hazardlab/gate.hpp"
#include "hazardlab/host_memory.hpp"
#include "hazardlab/patterns.hpp"
#include "hazardlab/settings.hpp"
#include "hazardlab/stream.hpp"

namespace hazardlab {

enum class CopyCall {
  MemcpyAsync,  // cudaMemcpyAsync on the case's stream
  Memcpy,       // cudaMemcpy: always the legacy default stream
  Kernel,       // a kernel that reads the host pointer itself (mapped or pageable-accessible memory)
};
std::string_view to_string(CopyCall call) noexcept;

// One generated or planned case.
struct TransferCase {
  std::size_t bytes = 1;
  std::size_t host_offset = 0;  // bytes past a page boundary where the host side starts
  PatternSpec pattern;
  HostMemoryKind host_kind = HostMemoryKind::Pinned;
  StreamKind stream = StreamKind::NonBlocking;
  GateKind gate = GateKind::HostFunction;
  std::uint32_t gate_delay_us = 0;    // how long a guard's gate stays closed after the copy is queued
  std::uint32_t device_delay_us = 0;  // a sleep kernel between the gate and the copy
  // Up to two parameters of the hazard's own (ring slots, batch count, consumer kind...), named by
  // its CaseSpace.
  std::uint32_t knob = 0;
  std::string knob_name;
  std::uint32_t second_knob = 0;
  std::string second_knob_name;
  std::string describe() const;
};
void to_json(nlohmann::json& j, const TransferCase& c);

// What one trial saw.
struct TrialObservation {
  // Host-to-device: the device buffer after everything settled.
  // Device-to-host: the host destination as the host read it right after the fence.
  ByteCensus seen;
  // Device-to-host only: the destination after synchronizing (the copy itself must be whole).
  std::optional<ByteCensus> settled;
  bool call_blocked = false;    // the copy call did not return until the gate was forced open
  bool gate_timed_out = false;  // nobody opened the gate: it opened itself after its timeout
  bool hazard_visible = false;  // the damage reached the data
  bool data_correct = false;    // the host and device agree on the original data
  std::string detail;           // what else the trial measured, in words
  std::string undecided;        // why this trial cannot tell (a positive control counts it inconclusive)
  std::string describe() const;
};

// Buffers shared by all trials of a run, allocated once at the largest size.
class TransferRig {
 public:
  TransferRig(std::size_t max_bytes, const DeviceFingerprint& device);
  std::size_t max_bytes() const noexcept { return max_bytes_; }
  const DeviceFingerprint& device_info() const noexcept { return info_; }
  HostBuffer& host(HostMemoryKind kind);
  // The case's bytes at its host offset, in the host buffer of the case's memory kind (or `kind`).
  std::span<std::byte> host_region(const TransferCase& c) { return host_region(c.host_kind, c); }
  std::span<std::byte> host_region(HostMemoryKind kind, const TransferCase& c) {
    return host(kind).span().subspan(c.host_offset, c.bytes);
  }
  DeviceBuffer& device() { return device_; }
  HostBuffer& readback() { return readback_; }  // pinned: verifies what the device holds
  HostBuffer& snapshot() { return snapshot_; }  // pageable: what the host read too early
  DeviceBuffer& device_scratch();               // a second device buffer, allocated on first use
  // Reads `c.bytes` of device memory back (after everything that wrote it has finished) and says
  // which of the case's pattern versions each byte came from.
  ByteCensus census_of_device(const std::byte* device, const TransferCase& c);

 private:
  std::size_t max_bytes_;
  DeviceFingerprint info_;
  DeviceBuffer device_;
  HostBuffer readback_;
  HostBuffer snapshot_;
  std::optional<DeviceBuffer> scratch_;
  std::optional<HostBuffer> host_[6];
};

// Scenario 1: the host rewrites the source of a host-to-device copy after the call returned.
TrialObservation mutate_source_after_h2d(TransferRig& rig, const TransferCase& c, FenceKind fence, CopyCall call,
                                         const Settings& settings);

// Scenario 2: the host reads the destination of a device-to-host copy after the call returned.
TrialObservation read_destination_after_d2h(TransferRig& rig, const TransferCase& c, FenceKind fence, CopyCall call,
                                            const Settings& settings);

}  // namespace hazardlab
