#include "cuda/check.hpp"
#include "cuda/kernel_copy.hpp"
#include "cuda/kernel_loading.hpp"

namespace hazardlab {
namespace {

__global__ void copy_kernel(std::byte* out, const std::byte* in, std::size_t bytes) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes; i += stride) {
    out[i] = in[i];
  }
}

constexpr unsigned kThreads = 256;

}  // namespace

HAZARDLAB_KERNEL_LOADER(copy_kernel)

void enqueue_kernel_copy(std::byte* destination, const std::byte* source, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  const std::size_t wanted = (bytes + kThreads - 1) / kThreads;
  copy_kernel<<<static_cast<unsigned>(wanted < 4096 ? wanted : 4096), kThreads, 0, stream>>>(destination, source,
                                                                                             bytes);
  HL_CUDA_LAUNCHED("copy_kernel");
}

}  // namespace hazardlab
