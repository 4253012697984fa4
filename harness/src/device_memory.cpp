#include "hazardlab/device_memory.hpp"

#include <utility>

#include "hazardlab/cuda_check.hpp"

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

}  // namespace hazardlab
