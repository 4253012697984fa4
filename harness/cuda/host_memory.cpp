#include "cuda/host_memory.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "cuda/check.hpp"

namespace hazardlab {
namespace {
constexpr std::size_t kPage = 4096;

std::size_t round_to_pages(std::size_t bytes) { return ((bytes ? bytes : 1) + kPage - 1) / kPage * kPage; }

std::byte* aligned_pages(std::size_t bytes) {
  void* p = std::aligned_alloc(kPage, bytes);
  if (!p) throw std::bad_alloc();
  // Touch every page now, so the first trial does not pay for page faults.
  std::memset(p, 0, bytes);
  return static_cast<std::byte*>(p);
}

std::byte* host_alloc(std::size_t bytes, unsigned flags, const char* call) {
  void* p = nullptr;
  check_cuda(cudaHostAlloc(&p, bytes, flags), call, __FILE__, __LINE__);
  return static_cast<std::byte*>(p);
}
}  // namespace

HostBuffer::HostBuffer(HostMemoryKind kind, std::size_t bytes) : kind_(kind), bytes_(round_to_pages(bytes)) {
  switch (kind) {
    case HostMemoryKind::Pageable:
      data_ = aligned_pages(bytes_);
      break;
    case HostMemoryKind::Pinned: {
      void* p = nullptr;
      HL_CUDA(cudaMallocHost(&p, bytes_));
      data_ = static_cast<std::byte*>(p);
      break;
    }
    case HostMemoryKind::PinnedPortable:
      data_ = host_alloc(bytes_, cudaHostAllocPortable, "cudaHostAlloc(cudaHostAllocPortable)");
      break;
    case HostMemoryKind::Mapped:
      data_ = host_alloc(bytes_, cudaHostAllocMapped, "cudaHostAlloc(cudaHostAllocMapped)");
      break;
    case HostMemoryKind::WriteCombined:
      data_ = host_alloc(bytes_, cudaHostAllocWriteCombined, "cudaHostAlloc(cudaHostAllocWriteCombined)");
      break;
    case HostMemoryKind::Registered: {
      data_ = aligned_pages(bytes_);
      const cudaError_t rc = cudaHostRegister(data_, bytes_, cudaHostRegisterDefault);
      if (rc != cudaSuccess) {
        std::free(data_);
        data_ = nullptr;
        throw_cuda_error(rc, "cudaHostRegister(data, bytes, cudaHostRegisterDefault)", __FILE__, __LINE__);
      }
      break;
    }
  }
}

void HostBuffer::release() noexcept {
  if (!data_) return;
  switch (kind_) {
    case HostMemoryKind::Pageable:
      std::free(data_);
      break;
    case HostMemoryKind::Registered:
      HL_CUDA_WARN(cudaHostUnregister(data_));
      std::free(data_);
      break;
    default:
      HL_CUDA_WARN(cudaFreeHost(data_));
      break;
  }
  data_ = nullptr;
  bytes_ = 0;
}

HostBuffer::~HostBuffer() { release(); }

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : kind_(other.kind_), data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    release();
    kind_ = other.kind_;
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

HostRegistration::HostRegistration(void* data, std::size_t bytes, unsigned flags) : data_(data) {
  HL_CUDA(cudaHostRegister(data, bytes, flags));
}

HostRegistration::~HostRegistration() { HL_CUDA_WARN(cudaHostUnregister(data_)); }

void* HostBuffer::device_pointer() const {
  void* device = nullptr;
  HL_CUDA(cudaHostGetDevicePointer(&device, data_, 0));
  return device;
}

}  // namespace hazardlab
