// Lesson cross-stream-no-event: a producer on one created stream, a consumer on another, no event between them.
//
// PyTorch: a tensor written under `with torch.cuda.stream(s1):` and read under `with torch.cuda.stream(s2):`
// without `s2.wait_stream(s1)` (or an event: `e = s1.record_event(); s2.wait_event(e)`).
// Rule (CUDA C++ Programming Guide, Streams): work in different streams may run in any order or concurrently;
// only work within one stream is ordered. Blocking streams (plain cudaStreamCreate, as here) order only against
// the legacy default stream, never against each other.
// A sleep kernel queued ahead of the producer makes the consumer run first, every time.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lesson_scaffold.hpp"

constexpr size_t kBytes = 4 << 20;                    // 4 MiB
constexpr unsigned char kData = 0xA5, kStale = 0x00;  // what the producer writes; what the buffer held before

__global__ void fill_kernel(unsigned char* p, size_t n, unsigned char value) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = value;
}
static void produce(unsigned char* dev, unsigned char value, cudaStream_t s) {
  fill_kernel<<<256, 256, 0, s>>>(dev, kBytes, value);
  CHECK(cudaGetLastError());
}

// UNSAFE: two streams are two queues; nothing orders the consumer after the producer.
static void unsafe(unsigned char* dev, unsigned char* host, cudaStream_t a, cudaStream_t b, long us) {
  sleep_on(a, us);  // stream a is busy: the producer waits behind this kernel
  produce(dev, kData, a);
  CHECK(cudaMemcpyAsync(host, dev, kBytes, cudaMemcpyDeviceToHost, b));  // BUG: may run before the producer
}

// FIXED: an event recorded on a after the producer; stream b waits for it before the consumer.
static void fixed(unsigned char* dev, unsigned char* host, cudaStream_t a, cudaStream_t b, cudaEvent_t produced,
                  long us) {
  sleep_on(a, us);
  produce(dev, kData, a);
  CHECK(cudaEventRecord(produced, a));
  CHECK(cudaStreamWaitEvent(b, produced, 0));  // work queued on b from now on waits for the producer
  CHECK(cudaMemcpyAsync(host, dev, kBytes, cudaMemcpyDeviceToHost, b));
}

// Once everything has run: did the consumer read anything but the producer's bytes? Then resets the buffers.
static bool consumer_read_stale(unsigned char* dev, unsigned char* host) {
  CHECK(cudaDeviceSynchronize());
  size_t wrong = 0;
  for (size_t i = 0; i < kBytes; ++i) wrong += host[i] != kData;
  std::memset(host, kStale, kBytes);
  produce(dev, kStale, cudaStreamLegacy);
  CHECK(cudaDeviceSynchronize());
  return wrong > 0;
}

int main(int argc, char** argv) {
  long delay_us = 2000, trials = 20;
  parse_args(argc, argv, delay_us, trials);
  const char* gpu = gpu_name_or_exit();
  unsigned char *host, *dev;
  cudaStream_t a, b;
  cudaEvent_t produced;
  CHECK(cudaMallocHost(&host, kBytes));  // allocating may synchronize the device: all done before the trials
  CHECK(cudaMalloc(&dev, kBytes));
  CHECK(cudaStreamCreate(&a));
  CHECK(cudaStreamCreate(&b));
  CHECK(cudaEventCreate(&produced));
  consumer_read_stale(dev, host);  // sets the stale bytes, and loads fill_kernel before the trials
  std::printf("cross-stream-no-event on %s, sleep %ld us ahead of the producer (measured %.0f us)\n", gpu, delay_us,
              measured_sleep_us(a, delay_us));
  long unsafe_wrong = 0, fixed_right = 0;
  for (long t = 0; t < trials; ++t) {
    unsafe(dev, host, a, b, delay_us);
    unsafe_wrong += consumer_read_stale(dev, host);
    fixed(dev, host, a, b, produced, delay_us);
    fixed_right += !consumer_read_stale(dev, host);
  }
  std::printf("unsafe: the consumer read the stale buffer in %ld of %ld trials\n", unsafe_wrong, trials);
  std::printf("fixed:  the consumer read the produced data in %ld of %ld trials\n", fixed_right, trials);
  return verdict(unsafe_wrong, fixed_right, trials);
}
