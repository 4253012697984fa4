#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

#include "hazardlab/pattern_spec.hpp"

namespace hazardlab {

// Fills device memory with a pattern version, in stream order.
void enqueue_device_fill(std::byte* device, std::size_t bytes, const PatternSpec& p, PatternVersion v,
                         cudaStream_t stream);

}  // namespace hazardlab
