// Lesson chunked-readback-wrong-event: a readback in chunks, an event after each; the host reads chunk k after
// waiting on the event of chunk k - 1.
//
// PyTorch: the same with chunks read by `.to('cpu', non_blocking=True)` and an event per chunk
// (`e[k] = torch.cuda.Event(); e[k].record()`), processing chunk k after `e[k - 1].synchronize()`.
// Rule (CUDA Runtime API, cudaEventRecord): an event captures the work queued before it was recorded, and
// nothing queued after; so event k - 1 says nothing about chunk k.
// A sleep kernel queued ahead of the last chunk (a busy device) makes the host read it before it arrived.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lesson_scaffold.hpp"

// 1 MiB in 4 chunks: small, because the sleep must outlast the host reading the first three.
constexpr int kChunks = 4;
constexpr size_t kBytes = 1 << 20, kChunk = kBytes / kChunks;
constexpr unsigned char kData = 0xA5, kStale = 0x00;  // what the device holds; what the host held before

static size_t count_wrong(const unsigned char* host, size_t n) {
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += host[i] != kData;
  return wrong;
}
// Queues chunk k's copy and then event k, for every k; the last chunk waits behind the sleep kernel.
static void queue_readback(unsigned char* host, const unsigned char* dev, cudaStream_t s, cudaEvent_t done[],
                           long delay_us) {
  std::memset(host, kStale, kBytes);
  for (int k = 0; k < kChunks; ++k) {
    if (k == kChunks - 1) sleep_on(s, delay_us);
    CHECK(cudaMemcpyAsync(host + k * kChunk, dev + k * kChunk, kChunk, cudaMemcpyDeviceToHost, s));
    CHECK(cudaEventRecord(done[k], s));
  }
}

// UNSAFE: "make sure the previous one has finished", then read chunk k.
static size_t unsafe(unsigned char* host, const unsigned char* dev, cudaStream_t s, cudaEvent_t done[], long us) {
  queue_readback(host, dev, s, done, us);
  size_t wrong = 0;
  for (int k = 0; k < kChunks; ++k) {
    if (k > 0) CHECK(cudaEventSynchronize(done[k - 1]));  // BUG: covers chunks 0 .. k - 1, not chunk k
    wrong += count_wrong(host + k * kChunk, kChunk);
  }
  CHECK(cudaStreamSynchronize(s));  // (only so that the next trial starts on an idle stream)
  return wrong;
}

// FIXED: chunk k is read after waiting on chunk k's own event.
static size_t fixed(unsigned char* host, const unsigned char* dev, cudaStream_t s, cudaEvent_t done[], long us) {
  queue_readback(host, dev, s, done, us);
  size_t wrong = 0;
  for (int k = 0; k < kChunks; ++k) {
    CHECK(cudaEventSynchronize(done[k]));  // chunk k has landed
    wrong += count_wrong(host + k * kChunk, kChunk);
  }
  return wrong;
}

int main(int argc, char** argv) {
  // Longer than the other lessons' 2000 us: the host waits on three events before it reads the last chunk, and
  // on a busy host that took over 2 ms in 1 of 20 trials now and then (H100).
  long delay_us = 10000, trials = 20;
  parse_args(argc, argv, delay_us, trials);
  const char* gpu = gpu_name_or_exit();
  unsigned char *host, *dev;
  cudaStream_t s;
  cudaEvent_t done[kChunks];
  CHECK(cudaMallocHost(&host, kBytes));  // allocating may synchronize the device: all done before the trials
  CHECK(cudaMalloc(&dev, kBytes));
  CHECK(cudaStreamCreate(&s));
  for (cudaEvent_t& e : done) CHECK(cudaEventCreate(&e));
  CHECK(cudaMemset(dev, kData, kBytes));
  CHECK(cudaDeviceSynchronize());
  std::printf("chunked-readback-wrong-event on %s, %d chunks, sleep %ld us ahead of the last (measured %.0f us)\n", gpu,
              kChunks, delay_us, measured_sleep_us(s, delay_us));
  long unsafe_wrong = 0, fixed_right = 0;
  for (long t = 0; t < trials; ++t) {
    unsafe_wrong += unsafe(host, dev, s, done, delay_us) > 0;
    fixed_right += fixed(host, dev, s, done, delay_us) == 0;
  }
  std::printf("unsafe: the host read a chunk before it arrived in %ld of %ld trials\n", unsafe_wrong, trials);
  std::printf("fixed:  the host read every chunk after it arrived in %ld of %ld trials\n", fixed_right, trials);
  return verdict(unsafe_wrong, fixed_right, trials);
}
