#pragma once
// A copy done by a kernel instead of a copy engine: the other kind of consumer a scenario can use.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace hazardlab {

// Copies `bytes` from `source` to `destination` in stream order. Either side may be any address
// the device can dereference: device memory, mapped host memory, or pageable memory on devices
// with pageableMemoryAccess.
void enqueue_kernel_copy(std::byte* destination, const std::byte* source, std::size_t bytes, cudaStream_t stream);

}  // namespace hazardlab
