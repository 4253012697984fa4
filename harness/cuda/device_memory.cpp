#include "cuda/device_memory.hpp"

#include <utility>

#include "cuda/check.hpp"

namespace hazardlab {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  void* p = nullptr;
  HL_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
  data_ = static_cast<std::byte*>(p);
}

DeviceBuffer::~DeviceBuffer() {
  if (data_) HL_CUDA_WARN(cudaFree(data_));
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_) HL_CUDA_WARN(cudaFree(data_));
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

StreamOrderedBlock::StreamOrderedBlock(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
  void* p = nullptr;
  HL_CUDA(cudaMallocAsync(&p, bytes ? bytes : 1, stream));
  data_ = static_cast<std::byte*>(p);
}

StreamOrderedBlock::~StreamOrderedBlock() {
  if (data_) HL_CUDA_WARN(cudaFreeAsync(data_, stream_));
}

void StreamOrderedBlock::free_async() {
  if (!data_) return;
  HL_CUDA(cudaFreeAsync(std::exchange(data_, nullptr), stream_));
}

void FreeManaged::operator()(std::byte* p) const noexcept { HL_CUDA_WARN(cudaFree(p)); }

ManagedBytes allocate_managed(std::size_t bytes) {
  void* p = nullptr;
  HL_CUDA(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
  return ManagedBytes(static_cast<std::byte*>(p));
}

}  // namespace hazardlab
