// Lesson host-timer-async-copy: a host clock around cudaMemcpyAsync measures the call, not the copy.
//
// PyTorch: `t0 = time.time(); y = x.to('cuda', non_blocking=True); t1 = time.time()`: a "bandwidth" that no
// link can carry. Rule (CUDA C++ Best Practices Guide, Using CPU Timers): CUDA calls may return before the work
// is done, so synchronize before stopping a host timer; or time the work with events recorded in the stream
// (Using CUDA GPU Timers). A sleep kernel queued ahead of the copy makes sure the copy has not even started
// when the unsafe timer stops. The check: the unsafe figure is under a tenth of the events' figure.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lesson_scaffold.hpp"

constexpr size_t kBytes = 64 << 20;   // 64 MiB: a millisecond or more on a PCIe link, far longer than the call
constexpr double kMaxLinkGBs = 1000;  // no host link carries more (PCIe 5.0 x16: 64 GB/s; NVLink-C2C: 450)

// UNSAFE: the host clock stops when cudaMemcpyAsync returns, which is as soon as the copy is queued.
static double unsafe_us(const unsigned char* pinned, unsigned char* dev, cudaStream_t s, long delay_us) {
  sleep_on(s, delay_us);  // the stream is busy: the copy waits behind this kernel
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(cudaMemcpyAsync(dev, pinned, kBytes, cudaMemcpyHostToDevice, s));
  const auto t1 = std::chrono::steady_clock::now();  // BUG: the copy has not even started
  CHECK(cudaStreamSynchronize(s));                   // (only so that the next trial starts on an idle stream)
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}

// FIXED: events recorded in the stream right around the copy, read once the stop event has completed.
static double fixed_us(const unsigned char* pinned, unsigned char* dev, cudaStream_t s, cudaEvent_t start,
                       cudaEvent_t stop, long delay_us) {
  sleep_on(s, delay_us);
  CHECK(cudaEventRecord(start, s));  // passes when the sleep is over and the copy is about to start
  CHECK(cudaMemcpyAsync(dev, pinned, kBytes, cudaMemcpyHostToDevice, s));
  CHECK(cudaEventRecord(stop, s));
  CHECK(cudaEventSynchronize(stop));  // the copy has completed: the events' times are final
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  return ms * 1000.0;
}
static double gbs(double us) { return kBytes / us / 1e3; }

int main(int argc, char** argv) {
  long delay_us = 2000, trials = 20;
  parse_args(argc, argv, delay_us, trials);
  const char* gpu = gpu_name_or_exit();
  unsigned char *pinned, *dev;
  cudaStream_t s;
  cudaEvent_t start, stop;
  CHECK(cudaMallocHost(&pinned, kBytes));  // allocating may synchronize the device: all done before the trials
  CHECK(cudaMalloc(&dev, kBytes));
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::memset(pinned, 0xA5, kBytes);
  std::printf("host-timer-async-copy on %s, 64 MiB host to device, sleep %ld us ahead of the copy (measured %.0f us)\n",
              gpu, delay_us, measured_sleep_us(s, delay_us));
  long unsafe_wrong = 0, fixed_right = 0;
  double host_us = 0, event_us = 0;
  for (long t = 0; t < trials; ++t) {
    host_us = unsafe_us(pinned, dev, s, delay_us);
    event_us = fixed_us(pinned, dev, s, start, stop, delay_us);
    unsafe_wrong += host_us < event_us / 10;      // wrong: under a tenth of the copy's real time
    fixed_right += gbs(event_us) <= kMaxLinkGBs;  // right: a rate that a host link can carry
  }
  std::printf(
      "unsafe: the host timer read under a tenth of the copy's time in %ld of %ld trials (last: %.1f us, "
      "%.0f GB/s)\n",
      unsafe_wrong, trials, host_us, gbs(host_us));
  std::printf(
      "fixed:  the events timed the copy at a rate a host link can carry in %ld of %ld trials (last: %.1f us, "
      "%.1f GB/s)\n",
      fixed_right, trials, event_us, gbs(event_us));
  return verdict(unsafe_wrong, fixed_right, trials);
}
