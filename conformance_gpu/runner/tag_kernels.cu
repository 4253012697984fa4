#include "conformance_gpu/runner/tag_kernels.hpp"
#include "cuda/check.hpp"
#include "cuda/kernel_loading.hpp"

namespace hazardlab::conformance {
namespace {

__global__ void fill_kernel(std::uint32_t* buffer, std::uint32_t tag) {
  for (std::size_t i = threadIdx.x; i < kWords; i += blockDim.x) buffer[i] = tag;
}

__global__ void op_kernel(const std::uint32_t* read, std::uint32_t* seen, std::uint32_t* write, std::uint32_t tag) {
  for (std::size_t i = threadIdx.x; i < kWords; i += blockDim.x) {
    if (read != nullptr) seen[i] = read[i];
    if (write != nullptr) write[i] = tag;
  }
}

}  // namespace

HAZARDLAB_KERNEL_LOADER(fill_kernel, op_kernel)

void enqueue_fill(std::uint32_t* buffer, std::uint32_t tag, cudaStream_t stream) {
  fill_kernel<<<1, 256, 0, stream>>>(buffer, tag);
  HL_CUDA_LAUNCHED("fill_kernel");
}

void enqueue_kernel_op(const std::uint32_t* read, std::uint32_t* seen, std::uint32_t* write, std::uint32_t tag,
                       cudaStream_t stream) {
  op_kernel<<<1, 256, 0, stream>>>(read, seen, write, tag);
  HL_CUDA_LAUNCHED("op_kernel");
}

}  // namespace hazardlab::conformance
