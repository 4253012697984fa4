#pragma once
// Small kernels the scenarios use as producers and consumers.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "hazardlab/pattern_spec.hpp"

namespace hazardlab {

// Fills device memory with a pattern version, in stream order.
void enqueue_device_fill(std::byte* device, std::size_t bytes, const PatternSpec& p, PatternVersion v,
                         cudaStream_t stream);

// Copies `bytes` from `source` to `destination` with a kernel (not a copy engine), in stream order.
// Either side may be any address the device can dereference: device memory, mapped host memory,
// or pageable memory on devices with pageableMemoryAccess.
void enqueue_kernel_copy(std::byte* destination, const std::byte* source, std::size_t bytes, cudaStream_t stream);

}  // namespace hazardlab
