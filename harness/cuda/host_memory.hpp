#pragma once
// RAII owners for every kind of host memory a transfer can use. The kind decides what the
// CUDA runtime promises about asynchronous copies from and to it.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string_view>

#include "hazardlab/host_memory_kind.hpp"

namespace hazardlab {

class HostBuffer {
 public:
  HostBuffer() = default;
  // Allocates `bytes` (at least one page, page-aligned) of the given kind.
  HostBuffer(HostMemoryKind kind, std::size_t bytes);
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return bytes_; }
  HostMemoryKind kind() const noexcept { return kind_; }
  std::span<std::byte> span() const noexcept { return {data_, bytes_}; }
  // Device-side address of mapped memory (valid for Mapped, and for page-locked kinds on
  // devices with unified addressing).
  void* device_pointer() const;

 private:
  void release() noexcept;
  HostMemoryKind kind_ = HostMemoryKind::Pageable;
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Page-locks an existing range with cudaHostRegister for the owner's lifetime.
class HostRegistration {
 public:
  HostRegistration(void* data, std::size_t bytes, unsigned flags = cudaHostRegisterDefault);
  ~HostRegistration();
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

 private:
  void* data_;
};

}  // namespace hazardlab
