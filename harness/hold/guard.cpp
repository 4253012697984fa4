#include "hold/guard.hpp"

#include "cuda/check.hpp"

namespace hazardlab {

void Guard::fence(FenceKind kind, cudaStream_t stream) const {
  Fence fence(kind, stream, fence_timeout_);
  fence.after_copy();
  if (enforced()) fence.wait();
}

void Guard::host_waits_for(Event& event) const {
  if (enforced()) event.synchronize();
}

void Guard::stream_waits_for(cudaStream_t waiter, const Event& event) const {
  if (enforced()) HL_CUDA(cudaStreamWaitEvent(waiter, event.get(), 0));
}

cudaError_t Guard::stream_waits_for_or_error(cudaStream_t waiter, const Event& event) const noexcept {
  return enforced() ? cudaStreamWaitEvent(waiter, event.get(), 0) : cudaSuccess;
}

}  // namespace hazardlab
