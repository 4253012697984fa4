#pragma once
// A sleep counted in SM clock cycles, the way torch.cuda._sleep(cycles) counts it: its length in
// time depends on the GPU's clock, which is why the same tutorial code waits a different time
// on each GPU. The sweeps use it only to replay the tutorial; their own delays are in time
// (hold/sleep.hpp).
#include <cuda_runtime_api.h>

namespace hazardlab {

// Enqueues a one-thread kernel that spins until clock64() has advanced by `cycles`.
void enqueue_cycle_sleep(cudaStream_t stream, long long cycles);

// How long `cycles` of that spin take on the current device, in microseconds: the median of a
// few runs timed with CUDA events on a stream of its own.
double time_cycle_sleep_us(long long cycles);

}  // namespace hazardlab
