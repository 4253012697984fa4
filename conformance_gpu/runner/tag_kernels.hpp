// The runner's kernels: fill a buffer with a tag, and a program's kernel (copy what it reads to its
// observation area, fill what it writes with its tag).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "conformance/model/program.hpp"

namespace hazardlab::conformance {

inline constexpr std::size_t kWords = kBufferBytes / sizeof(std::uint32_t);  // every buffer, in 32-bit tags

void enqueue_fill(std::uint32_t* buffer, std::uint32_t tag, cudaStream_t stream);
void enqueue_kernel_op(const std::uint32_t* read, std::uint32_t* seen, std::uint32_t* write, std::uint32_t tag,
                       cudaStream_t stream);

}  // namespace hazardlab::conformance
