#pragma once
// Kernels that write the trial patterns on the device: the producers of the scenarios.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "trial/pattern_spec.hpp"

namespace hazardlab {

// Fills device memory with a pattern version, in stream order.
void enqueue_device_fill(std::byte* device, std::size_t bytes, const PatternSpec& p, PatternVersion v,
                         cudaStream_t stream);

// One block writes the original pattern into `data`, then sets `*flag` to 1: the message-passing
// litmus test. With `fenced`, every thread issues __threadfence_system() before the block barrier
// and the flag is a system-scope release store; without it, a plain volatile store.
void enqueue_publish(std::byte* data, std::size_t bytes, const PatternSpec& p, unsigned* flag, bool fenced,
                     cudaStream_t stream);

}  // namespace hazardlab
