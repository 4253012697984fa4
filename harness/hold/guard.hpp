#pragma once
// A guard is the synchronization that makes a hazard safe: a fence before the host touches its
// buffer, an event the host waits for, an event another stream waits for. A trial states its guard
// once, through this handle, and never asks whether it is switched off: the harness switches it
// off for the mutation check (the same property rerun without the synchronization must then see
// wrong data, or the guard proves nothing), and HAZARDLAB_SABOTAGE_GUARDS switches it off for a
// whole run. Switched off, each call still queues what it would wait for; only the wait goes.
//   s.guard().fence(fence, stream.get());                  // the host waits with `fence`
//   s.guard().host_waits_for(arrived[k]);                  // cudaEventSynchronize
//   s.guard().stream_waits_for(consumer.get(), produced);  // cudaStreamWaitEvent
#include <cuda_runtime_api.h>

#include <chrono>

#include "cuda/stream.hpp"
#include "hold/fence.hpp"

namespace hazardlab {

class Guard {
 public:
  enum class Mode {
    Enforced,   // every guard synchronizes: a normal run
    Sabotaged,  // every guard skips its wait: the mutation check
  };

  // `fence_timeout` bounds the fences that poll (Fence).
  Guard(Mode mode, std::chrono::milliseconds fence_timeout) : mode_(mode), fence_timeout_(fence_timeout) {}

  // The host waits with `kind` for the work queued on `stream` so far (FenceKind::None: no wait).
  void fence(FenceKind kind, cudaStream_t stream) const;
  // The host waits until `event` has completed (cudaEventSynchronize).
  void host_waits_for(Event& event) const;
  // `waiter`'s later work waits on the device for `event` (cudaStreamWaitEvent); the host goes on.
  void stream_waits_for(cudaStream_t waiter, const Event& event) const;
  // The same for code that hands CUDA errors back instead of throwing (another host thread's step).
  [[nodiscard]] cudaError_t stream_waits_for_or_error(cudaStream_t waiter, const Event& event) const noexcept;

  Mode mode() const noexcept { return mode_; }

 private:
  bool enforced() const noexcept { return mode_ == Mode::Enforced; }

  Mode mode_;
  std::chrono::milliseconds fence_timeout_;
};

}  // namespace hazardlab
