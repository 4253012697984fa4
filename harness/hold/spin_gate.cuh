#pragma once
#include <cuda_runtime_api.h>

namespace hazardlab::detail {

// Shared between the host and the spinning kernel, in mapped page-locked memory.
struct SpinGateCell {
  unsigned open;    // set to 1 by the host (release store)
  unsigned status;  // written by the kernel: 1 passed the gate, 2 gave up after the timeout
};

inline constexpr unsigned kSpinGatePassed = 1;
inline constexpr unsigned kSpinGateTimedOut = 2;

void launch_spin_gate(SpinGateCell* cell, unsigned long long timeout_ns, cudaStream_t stream);

}  // namespace hazardlab::detail
