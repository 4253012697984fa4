#pragma once
// The GPU's global nanosecond timer. It runs at a fixed rate whatever the SM clock does, so
// delays and timeouts measured with it hold under boost, throttling and sharing.
__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
