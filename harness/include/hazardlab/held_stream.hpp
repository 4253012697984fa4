#pragma once
// A stream held closed by a gate for one trial, with the watchdog and timer that keep a trial
// from hanging. Used by every scenario:
//   HeldStream held(c, stream, fence, settings);   // gate closed (and a device delay queued)
//   bool blocked = held.issue(settings, [&] { cudaMemcpyAsync(...); });
//   ... the fence under test, then the damage ...
//   bool timed_out = held.release_and_drain(stream);
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

#include "hazardlab/cuda_check.hpp"
#include "hazardlab/fence.hpp"
#include "hazardlab/gate.hpp"
#include "hazardlab/settings.hpp"
#include "hazardlab/sleep.hpp"
#include "hazardlab/transfer.hpp"

namespace hazardlab {

// Holds the stream closed from construction until the host opens it. A guard gets a timer that
// opens it after the case's delay; the unsafe variant leaves it closed until after the damage.
struct HeldStream {
  std::unique_ptr<Gate> gate;
  std::optional<GateTimer> timer;

  HeldStream(const TransferCase& c, cudaStream_t stream, FenceKind fence, const Settings& s)
      : gate(close_gate(c.gate, stream, s.gate_timeout)) {
    if (c.device_delay_us) enqueue_sleep(stream, std::chrono::microseconds(c.device_delay_us));
    if (fence != FenceKind::None) timer.emplace(*gate, std::chrono::microseconds(c.gate_delay_us));
  }

  // Issues the copy; returns true when the call did not come back until the watchdog opened the gate.
  template <typename Copy>
  bool issue(const Settings& s, Copy copy) {
    Watchdog watchdog(*gate, s.call_limit);
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

// The fences that poll give up well after the gate would have opened itself.
inline std::chrono::milliseconds fence_timeout(const Settings& s) { return s.gate_timeout * 2; }

}  // namespace hazardlab
