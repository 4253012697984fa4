#pragma once
// The kinds of host memory a transfer can use, and their one spelling in the record. The CUDA
// side (harness/cuda/host_memory.hpp) allocates them; the record and the reports only name them.
#include <optional>
#include <string_view>

namespace hazardlab {

enum class HostMemoryKind {
  Pageable,        // std::aligned_alloc: copies are staged by the driver
  Pinned,          // cudaMallocHost: page-locked, copies are DMA'd straight from it
  PinnedPortable,  // cudaHostAlloc(cudaHostAllocPortable): page-locked for every context
  Registered,      // aligned_alloc + cudaHostRegister: pageable memory page-locked afterwards
  Mapped,          // cudaHostAlloc(cudaHostAllocMapped): page-locked and addressable by kernels
  WriteCombined,   // cudaHostAlloc(cudaHostAllocWriteCombined): fast to write, slow to read
};

std::string_view to_string(HostMemoryKind kind) noexcept;
std::optional<HostMemoryKind> host_memory_kind_from_string(std::string_view name) noexcept;
bool is_page_locked(HostMemoryKind kind) noexcept;

}  // namespace hazardlab
