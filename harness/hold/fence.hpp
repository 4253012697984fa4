#pragma once
// A fence is what the host does between queuing a copy and touching the copy's host buffer.
// Each guard in hazards/ is one of these; the unsafe variant uses None.
#include <cuda_runtime_api.h>

#include <chrono>
#include <memory>
#include <string_view>

#include "cuda/stream.hpp"

namespace hazardlab {

enum class FenceKind {
  None,               // touch the buffer at once: the unsafe pattern
  StreamSynchronize,  // cudaStreamSynchronize(stream)
  EventSynchronize,   // cudaEventRecord after the copy, cudaEventSynchronize
  EventQuery,         // cudaEventRecord after the copy, poll cudaEventQuery until it is ready
  HostFunction,       // cudaLaunchHostFunc after the copy signals a latch the host waits on
};

std::string_view to_string(FenceKind kind) noexcept;

class Fence {
 public:
  // `timeout` bounds the polling fences; the blocking ones are bounded by the gate's timeout.
  // A trial fences through its Guard (hold/guard.hpp), which leaves the wait out for the mutation check.
  Fence(FenceKind kind, cudaStream_t stream, std::chrono::milliseconds timeout);
  ~Fence();
  Fence(const Fence&) = delete;
  Fence& operator=(const Fence&) = delete;

  void after_copy();  // queue what the wait will wait for
  void wait();        // block until the copy is done; throws std::runtime_error on timeout

  struct Latch;  // signalled by a host function the stream runs

 private:
  FenceKind kind_;
  cudaStream_t stream_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<Event> event_;
  std::shared_ptr<Latch> latch_;
};

}  // namespace hazardlab
