// Lesson legacy-stream-nonblocking-consumer: a producer on the legacy default stream, a consumer on a
// cudaStreamNonBlocking stream, and no event between them.
//
// PyTorch: a tensor written on the default stream, then used under `with torch.cuda.stream(side):` without
// `side.wait_stream(torch.cuda.current_stream())` (PyTorch's side streams are created non-blocking).
// Rule (CUDA Runtime API, stream synchronization behavior): the legacy default stream and the blocking streams
// wait for each other; a stream created with cudaStreamNonBlocking takes no part in that implicit ordering.
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

// UNSAFE: the consumer's stream is non-blocking, so nothing orders it after the legacy stream's producer.
static void unsafe(unsigned char* dev, unsigned char* host, cudaStream_t side, long delay_us) {
  sleep_on(cudaStreamLegacy, delay_us);  // the legacy default stream (stream 0) is busy
  produce(dev, kData, cudaStreamLegacy);
  CHECK(cudaMemcpyAsync(host, dev, kBytes, cudaMemcpyDeviceToHost, side));  // BUG: may run before the producer
}

// FIXED: an event recorded after the producer; the consumer's stream waits for it.
static void fixed(unsigned char* dev, unsigned char* host, cudaStream_t side, cudaEvent_t produced, long delay_us) {
  sleep_on(cudaStreamLegacy, delay_us);
  produce(dev, kData, cudaStreamLegacy);
  CHECK(cudaEventRecord(produced, cudaStreamLegacy));
  CHECK(cudaStreamWaitEvent(side, produced, 0));  // work queued on `side` from now on waits for the producer
  CHECK(cudaMemcpyAsync(host, dev, kBytes, cudaMemcpyDeviceToHost, side));
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
  cudaStream_t side;
  cudaEvent_t produced;
  CHECK(cudaMallocHost(&host, kBytes));  // allocating may synchronize the device: all done before the trials
  CHECK(cudaMalloc(&dev, kBytes));
  CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&produced));
  consumer_read_stale(dev, host);  // sets the stale bytes, and loads fill_kernel before the trials
  std::printf("legacy-stream-nonblocking-consumer on %s, sleep %ld us ahead of the producer (measured %.0f us)\n", gpu,
              delay_us, measured_sleep_us(cudaStreamLegacy, delay_us));
  long unsafe_wrong = 0, fixed_right = 0;
  for (long t = 0; t < trials; ++t) {
    unsafe(dev, host, side, delay_us);
    unsafe_wrong += consumer_read_stale(dev, host);
    fixed(dev, host, side, produced, delay_us);
    fixed_right += !consumer_read_stale(dev, host);
  }
  std::printf("unsafe: the consumer read the stale buffer in %ld of %ld trials\n", unsafe_wrong, trials);
  std::printf("fixed:  the consumer read the produced data in %ld of %ld trials\n", fixed_right, trials);
  return verdict(unsafe_wrong, fixed_right, trials);
}
