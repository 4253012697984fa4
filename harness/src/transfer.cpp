#include "hazardlab/transfer.hpp"

#include <atomic>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "hazardlab/cuda_check.hpp"
#include "hazardlab/device_kernels.hpp"
#include "hazardlab/held_stream.hpp"

namespace hazardlab {
namespace {

constexpr std::size_t kMaxHostOffset = 4096;

void issue_copy(CopyCall call, void* dst, const void* src, std::size_t bytes, cudaMemcpyKind direction,
                cudaStream_t stream) {
  if (call == CopyCall::Memcpy) {
    HL_CUDA(cudaMemcpy(dst, src, bytes, direction));
  } else if (call == CopyCall::Kernel) {
    enqueue_kernel_copy(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), bytes, stream);
  } else {
    HL_CUDA(cudaMemcpyAsync(dst, src, bytes, direction, stream));
  }
}

void check_fits(const TransferRig& rig, const TransferCase& c) {
  if (c.bytes == 0 || c.bytes > rig.max_bytes() || c.host_offset >= kMaxHostOffset) {
    throw std::invalid_argument("case does not fit the rig: " + c.describe());
  }
}

}  // namespace

std::string_view to_string(CopyCall call) noexcept {
  switch (call) {
    case CopyCall::Memcpy:
      return "cudaMemcpy";
    case CopyCall::Kernel:
      return "a kernel";
    case CopyCall::MemcpyAsync:
      break;
  }
  return "cudaMemcpyAsync";
}

std::string TransferCase::describe() const {
  std::ostringstream out;
  out << bytes << " B at host offset " << host_offset << ", " << to_string(host_kind) << " host memory, "
      << to_string(stream) << " stream, " << to_string(gate) << " gate, gate delay " << gate_delay_us
      << " us, device delay " << device_delay_us << " us, pattern " << pattern.describe();
  if (!knob_name.empty()) out << ", " << knob_name << ' ' << knob;
  if (!second_knob_name.empty()) out << ", " << second_knob_name << ' ' << second_knob;
  return out.str();
}

void to_json(nlohmann::json& j, const TransferCase& c) {
  j = nlohmann::json{{"bytes", c.bytes},
                     {"host_offset", c.host_offset},
                     {"host_memory", std::string(to_string(c.host_kind))},
                     {"stream", std::string(to_string(c.stream))},
                     {"gate", std::string(to_string(c.gate))},
                     {"gate_delay_us", c.gate_delay_us},
                     {"device_delay_us", c.device_delay_us},
                     {"pattern", c.pattern.describe()}};
  if (!c.knob_name.empty()) j[c.knob_name] = c.knob;
  if (!c.second_knob_name.empty()) j[c.second_knob_name] = c.second_knob;
}

std::string TrialObservation::describe() const {
  std::ostringstream out;
  if (seen.total() > 0) out << "seen: " << seen.describe();
  if (settled) out << "; after synchronizing: " << settled->describe();
  if (call_blocked) out << "; the copy call blocked until the gate was forced open";
  if (gate_timed_out) out << "; the gate timed out";
  if (!detail.empty()) out << "; " << detail;
  if (!undecided.empty()) out << "; undecided: " << undecided;
  return out.str();
}

TransferRig::TransferRig(std::size_t max_bytes, const DeviceFingerprint& device)
    : max_bytes_(max_bytes),
      info_(device),
      device_(max_bytes),
      readback_(HostMemoryKind::Pinned, max_bytes),
      snapshot_(HostMemoryKind::Pageable, max_bytes) {}

DeviceBuffer& TransferRig::device_scratch() {
  if (!scratch_) scratch_.emplace(max_bytes_);
  return *scratch_;
}

ByteCensus TransferRig::census_of_device(const std::byte* device, const TransferCase& c) {
  HL_CUDA(cudaMemcpy(readback_.data(), device, c.bytes, cudaMemcpyDeviceToHost));
  return take_census({readback_.data(), c.bytes}, c.pattern);
}

HostBuffer& TransferRig::host(HostMemoryKind kind) {
  auto& slot = host_[static_cast<int>(kind)];
  if (!slot) slot.emplace(kind, max_bytes_ + kMaxHostOffset);
  return *slot;
}

TrialObservation mutate_source_after_h2d(TransferRig& rig, const TransferCase& c, FenceKind fence, CopyCall call,
                                         const Settings& settings) {
  check_fits(rig, c);
  Stream stream(c.stream);
  const std::span<std::byte> source = rig.host_region(c);
  std::byte* destination = rig.device().data();

  // The host's data is A; the device buffer starts as the sentinel C.
  fill_pattern(source, c.pattern, PatternVersion::Original);
  enqueue_device_fill(destination, c.bytes, c.pattern, PatternVersion::Sentinel, stream.get());
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  TrialObservation obs;
  {
    HeldStream held(c, stream.get(), fence, settings);
    obs.call_blocked = held.issue(
        settings, [&] { issue_copy(call, destination, source.data(), c.bytes, cudaMemcpyHostToDevice, stream.get()); });
    Fence guard(fence, stream.get(), fence_timeout(settings), settings.sabotage_guards);
    guard.after_copy();
    guard.wait();
    // The damage: the host reuses its source buffer for the next batch (B).
    fill_pattern(source, c.pattern, PatternVersion::Mutated);
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }

  // What reached the device: A is correct, B means the copy read the host's later writes.
  obs.seen = rig.census_of_device(destination, c);
  obs.hazard_visible = obs.seen.mutated > 0;
  obs.data_correct = obs.seen.all_original();
  return obs;
}

TrialObservation read_destination_after_d2h(TransferRig& rig, const TransferCase& c, FenceKind fence, CopyCall call,
                                            const Settings& settings) {
  check_fits(rig, c);
  Stream stream(c.stream);
  const std::span<std::byte> destination = rig.host_region(c);
  std::byte* source = rig.device().data();

  // The device's data is A; the host destination starts as the sentinel C.
  enqueue_device_fill(source, c.bytes, c.pattern, PatternVersion::Original, stream.get());
  fill_pattern(destination, c.pattern, PatternVersion::Sentinel);
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  TrialObservation obs;
  {
    HeldStream held(c, stream.get(), fence, settings);
    obs.call_blocked = held.issue(
        settings, [&] { issue_copy(call, destination.data(), source, c.bytes, cudaMemcpyDeviceToHost, stream.get()); });
    Fence guard(fence, stream.get(), fence_timeout(settings), settings.sabotage_guards);
    guard.after_copy();
    guard.wait();
    // The damage: the host uses the result (here: takes a copy of it).
    std::memcpy(rig.snapshot().data(), destination.data(), c.bytes);
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }

  obs.seen = take_census({rig.snapshot().data(), c.bytes}, c.pattern);
  obs.settled = take_census(destination, c.pattern);
  obs.hazard_visible = !obs.seen.all_original();
  obs.data_correct = obs.seen.all_original() && obs.settled->all_original();
  return obs;
}

}  // namespace hazardlab
