// Lesson d2h-pinned-read-early: the host reads a pinned destination right after cudaMemcpyAsync returned.
//
// PyTorch: `y = cuda_t.to('cpu', non_blocking=True)`, then reading y at once (y.numpy(), y.tolist(), print(y)).
// Rule (CUDA Runtime API, API synchronization behavior): a copy from the device to pinned memory is fully
// asynchronous: the call returns before the data has landed, and the destination still holds its old bytes.
// A sleep kernel queued ahead of the copy on the same stream makes the host read before the copy runs, every time.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lesson_scaffold.hpp"

constexpr size_t kBytes = 4 << 20;                    // 4 MiB
constexpr unsigned char kData = 0xA5, kStale = 0x00;  // what the device holds; what the host buffer held before

static size_t count_wrong(const unsigned char* host) {
  size_t wrong = 0;
  for (size_t i = 0; i < kBytes; ++i) wrong += host[i] != kData;
  return wrong;
}

// UNSAFE: the host reads the destination as soon as cudaMemcpyAsync returns; the copy has only been queued.
static size_t unsafe(unsigned char* pinned, const unsigned char* dev, cudaStream_t s, long delay_us) {
  std::memset(pinned, kStale, kBytes);
  sleep_on(s, delay_us);  // the stream is busy: the copy waits behind this kernel
  CHECK(cudaMemcpyAsync(pinned, dev, kBytes, cudaMemcpyDeviceToHost, s));
  const size_t wrong = count_wrong(pinned);  // BUG: the copy has not written `pinned` yet
  CHECK(cudaStreamSynchronize(s));           // (only so that the next trial starts on an idle stream)
  return wrong;
}

// FIXED: the host waits for the stream (or for an event recorded after the copy) before it reads.
static size_t fixed(unsigned char* pinned, const unsigned char* dev, cudaStream_t s, long delay_us) {
  std::memset(pinned, kStale, kBytes);
  sleep_on(s, delay_us);
  CHECK(cudaMemcpyAsync(pinned, dev, kBytes, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));  // the copy has landed: now the host may read `pinned`
  return count_wrong(pinned);
}

int main(int argc, char** argv) {
  long delay_us = 2000, trials = 20;
  parse_args(argc, argv, delay_us, trials);
  const char* gpu = gpu_name_or_exit();
  unsigned char *pinned, *dev;
  cudaStream_t s;
  CHECK(cudaMallocHost(&pinned, kBytes));  // allocating may synchronize the device: all done before the trials
  CHECK(cudaMalloc(&dev, kBytes));
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemset(dev, kData, kBytes));
  CHECK(cudaDeviceSynchronize());
  std::printf("d2h-pinned-read-early on %s, sleep %ld us ahead of the copy (measured %.0f us)\n", gpu, delay_us,
              measured_sleep_us(s, delay_us));
  long unsafe_wrong = 0, fixed_right = 0;
  for (long t = 0; t < trials; ++t) {
    unsafe_wrong += unsafe(pinned, dev, s, delay_us) > 0;
    fixed_right += fixed(pinned, dev, s, delay_us) == 0;
  }
  std::printf("unsafe: the host read stale bytes in %ld of %ld trials\n", unsafe_wrong, trials);
  std::printf("fixed:  the host read the copied bytes in %ld of %ld trials\n", fixed_right, trials);
  return verdict(unsafe_wrong, fixed_right, trials);
}
