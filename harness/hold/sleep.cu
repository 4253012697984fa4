#include <stdexcept>
#include <string>

#include "cuda/check.hpp"
#include "cuda/global_timer.cuh"
#include "cuda/kernel_loading.hpp"
#include "hold/sleep.hpp"

namespace hazardlab {
namespace {
__global__ void sleep_kernel(unsigned long long delay_ns) {
  const unsigned long long start = global_timer_ns();
  while (global_timer_ns() - start < delay_ns) __nanosleep(1000);
}
}  // namespace

HAZARDLAB_KERNEL_LOADER(sleep_kernel)

void enqueue_sleep(cudaStream_t stream, std::chrono::nanoseconds delay) {
  if (delay.count() < 0 || delay > kMaxSleep) {
    throw std::invalid_argument("sleep of " + std::to_string(delay.count()) + " ns is outside [0, " +
                                std::to_string(kMaxSleep.count()) + " ms]");
  }
  sleep_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(delay.count()));
  HL_CUDA_LAUNCHED("sleep_kernel");
}

}  // namespace hazardlab
