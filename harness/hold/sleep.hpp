#pragma once
// A kernel that keeps a stream busy for a given time, measured with the GPU's global
// nanosecond timer (%globaltimer), so the delay does not change with clock boost or throttling.
#include <cuda_runtime_api.h>

#include <chrono>

namespace hazardlab {

// Longest accepted delay: a sleep is a widening of a window, never a wait for something.
inline constexpr std::chrono::milliseconds kMaxSleep{10'000};

// Enqueues a one-thread kernel that spins until `delay` has passed. Throws std::invalid_argument
// above kMaxSleep.
void enqueue_sleep(cudaStream_t stream, std::chrono::nanoseconds delay);

}  // namespace hazardlab
