#pragma once
// The cases a variant may be run with, and the two ways of drawing from them: a planned
// sequence (positive controls and observations: deterministic, every stream, gate and host kind
// in turn) and generation (trial/generate.hpp, for properties).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/host_memory.hpp"
#include "cuda/stream.hpp"
#include "hold/gate.hpp"
#include "settings/settings.hpp"
#include "trial/case.hpp"
#include "trial/parameter.hpp"

namespace hazardlab {

struct CaseSpace {
  std::size_t min_bytes = 1;
  std::size_t max_bytes = 0;  // 0: up to HAZARDLAB_MAX_BYTES; else the smaller of the two
  std::size_t largest(const JudgeSettings& s) const {
    return max_bytes ? std::min(max_bytes, s.max_transfer_bytes) : s.max_transfer_bytes;
  }
  std::vector<HostMemoryKind> host_kinds{HostMemoryKind::Pinned};
  std::vector<StreamKind> streams{StreamKind::Legacy, StreamKind::PerThread, StreamKind::Blocking,
                                  StreamKind::NonBlocking};
  std::vector<GateKind> gates{GateKind::HostFunction, GateKind::SpinKernel};
  std::uint32_t max_gate_delay_us = 2000;
  std::uint32_t max_device_delay_us = 200;
  std::vector<Parameter> parameters;  // the hazard's own, each over the range this variant uses
};

// The gates of `space` that this device can run (a spin-kernel gate needs mapped host memory) and
// the settings allow.
std::vector<GateKind> usable_gates(const CaseSpace& space, const DeviceFingerprint& device, const JudgeSettings& settings);

// Deterministic plan: trial i covers sizes around the page and 64 KiB edges, every stream, gate
// and host kind in turn, and parameter k's values with period 3^k.
TrialCase planned_case(const CaseSpace& space, const std::vector<GateKind>& gates, int trial, std::size_t max_bytes);

}  // namespace hazardlab
