#pragma once
// How each kind of variant is run and judged.
//   Control:     a fixed plan of gated trials; every trial must show the hazard.
//   Guard, Rule: a rapidcheck property over generated cases; every case must be correct, and a
//                failure shrinks to the smallest case, reported with the seed that replays it.
//   Observation: a sweep of sizes; what happened is reported, nothing is judged.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hazardlab/hazard.hpp"
#include "hazardlab/transfer.hpp"

namespace hazardlab {

using TrialFn = std::function<TrialObservation(TransferRig&, const TransferCase&, const Settings&)>;

// A parameter of the hazard's own, drawn from [min, max].
struct Knob {
  std::string name;
  std::uint32_t min = 0;
  std::uint32_t max = 0;
};

// The cases a variant may be run with.
struct CaseSpace {
  std::size_t min_bytes = 1;
  std::size_t max_bytes = 0;  // 0: up to HAZARDLAB_MAX_BYTES; else the smaller of the two
  std::size_t largest(const Settings& s) const {
    return max_bytes ? std::min(max_bytes, s.max_transfer_bytes) : s.max_transfer_bytes;
  }
  std::vector<HostMemoryKind> host_kinds{HostMemoryKind::Pinned};
  std::vector<StreamKind> streams{StreamKind::Legacy, StreamKind::PerThread, StreamKind::Blocking,
                                  StreamKind::NonBlocking};
  std::vector<GateKind> gates{GateKind::HostFunction, GateKind::SpinKernel};
  std::uint32_t max_gate_delay_us = 2000;
  std::uint32_t max_device_delay_us = 200;
  Knob knob;
  Knob second_knob;
};

// The gates of `space` that this device can run (a spin-kernel gate needs mapped host memory) and
// the settings allow.
std::vector<GateKind> usable_gates(const CaseSpace& space, const DeviceFingerprint& device, const Settings& settings);

// Deterministic control plan: trial i of n covers sizes around the page and 64 KiB edges,
// every stream, gate and host kind in turn.
TransferCase planned_case(const CaseSpace& space, const std::vector<GateKind>& gates, int trial, std::size_t max_bytes);

VariantResult check_positive_control(const RunContext& ctx, const CaseSpace& space, const TrialFn& trial);
VariantResult check_property(const RunContext& ctx, const CaseSpace& space, const TrialFn& trial);
VariantResult observe(const RunContext& ctx, const CaseSpace& space, const TrialFn& trial);

// Builds a Variant of the given kind that runs `trial` over `space`.
Variant make_variant(VariantKind kind, std::string id, std::string title, CaseSpace space, TrialFn trial);

// Which copy calls returned while the stream was still held closed, by size: the evidence for
// "this call is asynchronous to the host" or "this call waits for the stream".
class BlockingProfile {
 public:
  void add(std::size_t bytes, bool blocked, bool hazard_visible);
  nlohmann::json to_json() const;
  std::string summary() const;
  int trials() const noexcept { return trials_; }
  int blocked() const noexcept { return blocked_; }
  int hazard_visible() const noexcept { return visible_; }

 private:
  int trials_ = 0, blocked_ = 0, visible_ = 0;
  std::size_t largest_returned_early_ = 0;
  std::size_t smallest_blocked_ = 0;
};

}  // namespace hazardlab
