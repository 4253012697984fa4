#pragma once
// RAII owners of device memory: cudaMalloc'd buffers, stream-ordered (cudaMallocAsync) blocks and
// managed (cudaMallocManaged) memory.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

namespace hazardlab {

// cudaMalloc'd device memory, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return bytes_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// A block from the stream-ordered allocator (cudaMallocAsync on `stream`). It is returned with
// cudaFreeAsync on the same stream when the owner goes, or earlier with free_async(); a throw
// between allocation and free therefore leaks nothing. The stream must outlive the block.
class StreamOrderedBlock {
 public:
  StreamOrderedBlock(std::size_t bytes, cudaStream_t stream);
  ~StreamOrderedBlock();
  StreamOrderedBlock(const StreamOrderedBlock&) = delete;
  StreamOrderedBlock& operator=(const StreamOrderedBlock&) = delete;

  std::byte* data() const noexcept { return data_; }
  // Queues the free on the block's stream now; data() is null afterwards.
  void free_async();

 private:
  std::byte* data_ = nullptr;
  cudaStream_t stream_;
};

// cudaMallocManaged memory, attached globally. cudaFree waits for the device, so a trial lets it go
// after its drain.
struct FreeManaged {
  void operator()(std::byte* p) const noexcept;
};
using ManagedBytes = std::unique_ptr<std::byte, FreeManaged>;
ManagedBytes allocate_managed(std::size_t bytes);

}  // namespace hazardlab
