#pragma once
// A stream held closed by a gate for one trial, with the watchdog and timer that keep a trial
// from hanging. Used by every scenario:
//   HeldStream held(c.hold(settings), stream, fence);   // gate closed (and a device delay queued)
//   bool blocked = held.issue([&] { cudaMemcpyAsync(...); });
//   ... the fence under test, then the damage ...
//   bool timed_out = held.release_and_drain(stream);
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

#include "cuda/check.hpp"
#include "hold/fence.hpp"
#include "hold/gate.hpp"
#include "hold/sleep.hpp"

namespace hazardlab {

// How one trial holds its stream: which gate, and the delays that widen or narrow the race.
struct HoldPlan {
  GateKind gate = GateKind::HostFunction;
  std::chrono::microseconds gate_delay{0};         // how long a guard's gate stays closed after the copy is queued
  std::chrono::microseconds device_delay{0};       // a sleep kernel queued behind the gate, ahead of the copy
  std::chrono::milliseconds gate_timeout{10'000};  // the gate opens itself after this, loudly
  std::chrono::milliseconds call_limit{10};        // a call not back by then waited for the stream
};

// Holds the stream closed from construction until the host opens it. A guard gets a timer that
// opens it after the case's delay; the unsafe variant leaves it closed until after the damage.
struct HeldStream {
  std::unique_ptr<Gate> gate;
  std::optional<GateTimer> timer;
  std::chrono::milliseconds call_limit;

  HeldStream(const HoldPlan& plan, cudaStream_t stream, FenceKind fence)
      : gate(close_gate(plan.gate, stream, plan.gate_timeout)), call_limit(plan.call_limit) {
    if (plan.device_delay.count() > 0) enqueue_sleep(stream, plan.device_delay);
    if (fence != FenceKind::None) timer.emplace(*gate, plan.gate_delay);
  }

  // Issues the copy; returns true when the call did not come back until the watchdog opened the gate.
  template <typename Copy>
  bool issue(Copy copy) {
    Watchdog watchdog(*gate, call_limit);
    copy();
    return watchdog.disarm();
  }

  // Opens the gate (the damage is done), then waits for everything queued.
  bool release_and_drain(cudaStream_t stream) {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // also drains write-combining buffers
    gate->open(GateOpener::Host);
    timer.reset();
    HL_CUDA(cudaStreamSynchronize(stream));
    return gate->timed_out();
  }
};

}  // namespace hazardlab
