// Lesson h2d-pinned-mutate: the host rewrites a pinned source right after cudaMemcpyAsync returned.
//
// PyTorch: `x = t.to('cuda', non_blocking=True)` with t pinned, then `t.copy_(next_batch)` (any write to t).
// Rule (CUDA Runtime API, API synchronization behavior): an async copy from pinned memory may return before
// the copy has read its source. The copy reads the buffer when it runs, and sends whatever is there then.
// A sleep kernel queued ahead of the copy on the same stream makes the copy run after the rewrite, every time.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lesson_scaffold.hpp"

constexpr size_t kBytes = 4 << 20;                            // 4 MiB
constexpr unsigned char kOriginal = 0xA5, kRewritten = 0x5A;  // the data, and the host's next write

// UNSAFE: cudaMemcpyAsync has only queued the copy; the host rewrites the source before the copy reads it.
static void unsafe(unsigned char* pinned, unsigned char* dev, cudaStream_t s, long delay_us) {
  std::memset(pinned, kOriginal, kBytes);
  sleep_on(s, delay_us);  // the stream is busy: the copy waits behind this kernel
  CHECK(cudaMemcpyAsync(dev, pinned, kBytes, cudaMemcpyHostToDevice, s));
  std::memset(pinned, kRewritten, kBytes);  // BUG: the copy has not read `pinned` yet
}

// FIXED: an event recorded after the copy; the host waits for it before it rewrites the source.
static void fixed(unsigned char* pinned, unsigned char* dev, cudaStream_t s, cudaEvent_t copied, long delay_us) {
  std::memset(pinned, kOriginal, kBytes);
  sleep_on(s, delay_us);
  CHECK(cudaMemcpyAsync(dev, pinned, kBytes, cudaMemcpyHostToDevice, s));
  CHECK(cudaEventRecord(copied, s));
  CHECK(cudaEventSynchronize(copied));  // the copy has read `pinned`: now the host may reuse it
  std::memset(pinned, kRewritten, kBytes);
}

// Once the stream has drained: does the device hold anything but the original bytes? Then clears it.
static bool device_got_other_bytes(unsigned char* dev, unsigned char* readback, cudaStream_t s) {
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(readback, dev, kBytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemset(dev, 0, kBytes));
  CHECK(cudaDeviceSynchronize());
  size_t wrong = 0;
  for (size_t i = 0; i < kBytes; ++i) wrong += readback[i] != kOriginal;
  return wrong > 0;
}

int main(int argc, char** argv) {
  long delay_us = 2000, trials = 20;
  parse_args(argc, argv, delay_us, trials);
  const char* gpu = gpu_name_or_exit();
  unsigned char *pinned, *readback, *dev;
  cudaStream_t s;
  cudaEvent_t copied;
  CHECK(cudaMallocHost(&pinned, kBytes));  // allocating may synchronize the device: all done before the trials
  CHECK(cudaMallocHost(&readback, kBytes));
  CHECK(cudaMalloc(&dev, kBytes));
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaEventCreate(&copied));
  std::printf("h2d-pinned-mutate on %s, sleep %ld us ahead of the copy (measured %.0f us)\n", gpu, delay_us,
              measured_sleep_us(s, delay_us));
  long unsafe_wrong = 0, fixed_right = 0;
  for (long t = 0; t < trials; ++t) {
    unsafe(pinned, dev, s, delay_us);
    unsafe_wrong += device_got_other_bytes(dev, readback, s);
    fixed(pinned, dev, s, copied, delay_us);
    fixed_right += !device_got_other_bytes(dev, readback, s);
  }
  std::printf("unsafe: the device got the rewritten bytes in %ld of %ld trials\n", unsafe_wrong, trials);
  std::printf("fixed:  the device got the original bytes in %ld of %ld trials\n", fixed_right, trials);
  return verdict(unsafe_wrong, fixed_right, trials);
}
