#include <cuda/atomic>

#include "cuda/check.hpp"
#include "cuda/global_timer.cuh"
#include "cuda/kernel_loading.hpp"
#include "hold/spin_gate.cuh"

namespace hazardlab::detail {
namespace {
__global__ void spin_gate_kernel(SpinGateCell* cell, unsigned long long timeout_ns) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_system> open(cell->open);
  const unsigned long long start = global_timer_ns();
  while (open.load(cuda::memory_order_acquire) == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      cell->status = kSpinGateTimedOut;
      return;
    }
    __nanosleep(500);
  }
  cell->status = kSpinGatePassed;
}
}  // namespace

HAZARDLAB_KERNEL_LOADER(spin_gate_kernel)

void launch_spin_gate(SpinGateCell* cell, unsigned long long timeout_ns, cudaStream_t stream) {
  spin_gate_kernel<<<1, 1, 0, stream>>>(cell, timeout_ns);
  HL_CUDA_LAUNCHED("spin_gate_kernel");
}

}  // namespace hazardlab::detail
