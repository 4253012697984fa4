#include "hold/fence.hpp"

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "cuda/check.hpp"

namespace hazardlab {

std::string_view to_string(FenceKind kind) noexcept {
  switch (kind) {
    case FenceKind::None:
      return "none";
    case FenceKind::StreamSynchronize:
      return "stream-synchronize";
    case FenceKind::EventSynchronize:
      return "event-synchronize";
    case FenceKind::EventQuery:
      return "event-query";
    case FenceKind::HostFunction:
      return "host-function";
  }
  return "?";
}

struct Fence::Latch {
  std::mutex mutex;
  std::condition_variable cv;
  bool signalled = false;
};

namespace {
// Runs on a CUDA-internal thread once the stream reaches it; makes no CUDA calls.
void CUDART_CB signal_latch(void* arg) {
  std::unique_ptr<std::shared_ptr<Fence::Latch>> holder(static_cast<std::shared_ptr<Fence::Latch>*>(arg));
  Fence::Latch& latch = **holder;
  {
    std::lock_guard lock(latch.mutex);
    latch.signalled = true;
  }
  latch.cv.notify_all();
}

[[noreturn]] void timed_out(FenceKind kind, std::chrono::milliseconds timeout) {
  throw std::runtime_error("the " + std::string(to_string(kind)) + " fence was still waiting after " +
                           std::to_string(timeout.count()) + " ms: the stream never reached it");
}
}  // namespace

Fence::Fence(FenceKind kind, cudaStream_t stream, std::chrono::milliseconds timeout)
    : kind_(kind), stream_(stream), timeout_(timeout) {}

Fence::~Fence() = default;

void Fence::after_copy() {
  switch (kind_) {
    case FenceKind::EventSynchronize:
    case FenceKind::EventQuery:
      event_ = std::make_unique<Event>();
      event_->record(stream_);
      break;
    case FenceKind::HostFunction: {
      latch_ = std::make_shared<Latch>();
      auto* holder = new std::shared_ptr<Latch>(latch_);
      const cudaError_t rc = cudaLaunchHostFunc(stream_, &signal_latch, holder);
      if (rc != cudaSuccess) {
        delete holder;
        throw_cuda_error(rc, "cudaLaunchHostFunc(stream, signal_latch, latch)", __FILE__, __LINE__);
      }
      break;
    }
    case FenceKind::None:
    case FenceKind::StreamSynchronize:
      break;
  }
}

void Fence::wait() {
  switch (kind_) {
    case FenceKind::None:
      return;
    case FenceKind::StreamSynchronize:
      HL_CUDA(cudaStreamSynchronize(stream_));
      return;
    case FenceKind::EventSynchronize:
      event_->synchronize();
      return;
    case FenceKind::EventQuery: {
      const auto deadline = std::chrono::steady_clock::now() + timeout_;
      while (!event_->query()) {
        if (std::chrono::steady_clock::now() > deadline) timed_out(kind_, timeout_);
        std::this_thread::yield();
      }
      return;
    }
    case FenceKind::HostFunction: {
      std::unique_lock lock(latch_->mutex);
      if (!latch_->cv.wait_for(lock, timeout_, [&] { return latch_->signalled; })) timed_out(kind_, timeout_);
      return;
    }
  }
}

}  // namespace hazardlab
