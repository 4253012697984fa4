#include <cuda/atomic>

#include "cuda/check.hpp"
#include "cuda/kernel_loading.hpp"
#include "trial/device_patterns.hpp"

namespace hazardlab {
namespace {
__global__ void fill_kernel(std::byte* out, std::size_t bytes, PatternSpec p, PatternVersion v) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes; i += stride) {
    out[i] = static_cast<std::byte>(pattern_byte(p, v, i));
  }
}

__global__ void publish_kernel(std::byte* data, std::size_t bytes, PatternSpec p, unsigned* flag, bool fenced) {
  for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) {
    data[i] = static_cast<std::byte>(pattern_byte(p, PatternVersion::Original, i));
  }
  if (fenced) __threadfence_system();
  __syncthreads();
  if (threadIdx.x != 0) return;
  if (fenced) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*flag).store(1, cuda::memory_order_release);
  } else {
    *static_cast<volatile unsigned*>(flag) = 1;
  }
}

constexpr unsigned kThreads = 256;

unsigned blocks_for(std::size_t bytes) {
  const std::size_t wanted = (bytes + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted < 4096 ? wanted : 4096);
}
}  // namespace

HAZARDLAB_KERNEL_LOADER(fill_kernel, publish_kernel)

void enqueue_publish(std::byte* data, std::size_t bytes, const PatternSpec& p, unsigned* flag, bool fenced,
                     cudaStream_t stream) {
  publish_kernel<<<1, kThreads, 0, stream>>>(data, bytes, p, flag, fenced);
  HL_CUDA_LAUNCHED("publish_kernel");
}

void enqueue_device_fill(std::byte* device, std::size_t bytes, const PatternSpec& p, PatternVersion v,
                         cudaStream_t stream) {
  if (bytes == 0) return;
  fill_kernel<<<blocks_for(bytes), kThreads, 0, stream>>>(device, bytes, p, v);
  HL_CUDA_LAUNCHED("fill_kernel");
}

}  // namespace hazardlab
