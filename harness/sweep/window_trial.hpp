#pragma once
// One gate-free trial of a race: a sleep of a given length queued ahead of the racing work, the
// work, what the host does meanwhile, then whether the hazard showed. Nothing holds the stream:
// the sleep only widens the window, so the outcome is a matter of timing, measured, not forced.
#include <chrono>
#include <cstddef>
#include <functional>

#include "cuda/device_memory.hpp"
#include "cuda/host_memory.hpp"
#include "hazardlab/race_window.hpp"

namespace hazardlab {

// The racing shapes the sweeps measure.
enum class RaceShape {
  MutatePinnedSourceAfterH2D,         // h2d-pinned-mutate: the host rewrites the source of a queued copy
  ReadPinnedDestinationEarly,         // d2h-pinned-read-early: the host reads the destination of a queued copy
  LegacyProducerNonBlockingConsumer,  // a copy on a non-blocking stream reads what legacy-stream work writes
  TwoStreamsNoEvent,                  // the same between two non-blocking streams with no event
};

// The host memory every sweep races on: what its report says, and what its self-check verifies
// (sweep/self_check.hpp) before the curves are believed.
inline constexpr HostMemoryKind kWindowHostMemory = HostMemoryKind::Pinned;

// Buffers shared by a sweep's trials, allocated once at the largest size it needs.
struct WindowRig {
  WindowRig(RaceShape shape, std::size_t max_bytes);
  HostBuffer host;      // kWindowHostMemory: the source (H2D) or destination (D2H, consumers)
  DeviceBuffer device;  // the destination (H2D) or source (D2H, producers)
  HostBuffer readback;  // kWindowHostMemory: what reached the device (H2D only; one page otherwise)
};

// How one trial runs: the delay ahead of the racing work, or the tutorial's cycle sleep after it.
struct WindowTrialCase {
  std::size_t bytes = 0;
  HostAction action = HostAction::None;
  std::chrono::nanoseconds delay{0};  // sleep queued ahead of the copy (or the producer)
  long long sleep_cycles_after = 0;   // the tutorial's _sleep, queued after the copy instead
};

struct WindowTrialOutcome {
  bool reproduced = false;
  double achieved_delay_us = 0;  // the sleep ahead, timed with CUDA events around it
};

WindowTrialOutcome run_window_trial(RaceShape shape, WindowRig& rig, const WindowTrialCase& c);

}  // namespace hazardlab
