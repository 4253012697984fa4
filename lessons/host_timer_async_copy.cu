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

static void check(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s failed at %s:%d: %s\n", call, file, line, cudaGetErrorString(err));
  std::exit(1);
}
#define CHECK(call) check((call), #call, __FILE__, __LINE__)

constexpr size_t kBytes = 64 << 20;   // 64 MiB: a millisecond or more on a PCIe link, far longer than the call
constexpr double kMaxLinkGBs = 1000;  // no host link carries more (PCIe 5.0 x16: 64 GB/s; NVLink-C2C: 450)

// One thread spins on the GPU's nanosecond clock until `ns` have passed: its stream is busy for a bounded time.
__global__ void sleep_kernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}
static void sleep_on(cudaStream_t s, long us) {
  sleep_kernel<<<1, 1, 0, s>>>(us * 1000ull);
  CHECK(cudaGetLastError());
}

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

// ---- The same in every lesson: arguments, the GPU, the measured delay, the exit status. ----
static void parse_args(int argc, char** argv, long& delay_us, long& trials) {
  for (int i = 1; i < argc; i += 2) {
    const bool delay = !std::strcmp(argv[i], "--delay-us"), trial = !std::strcmp(argv[i], "--trials");
    const char* value = !delay && !trial ? "(unknown argument)" : i + 1 < argc ? argv[i + 1] : "(missing value)";
    char* end = nullptr;
    const long v = std::strtol(value, &end, 10), max = delay ? 1000000 : 1000;
    // Digits only: strtol alone would take " 5", "+5" and "-5".
    if (*value < '0' || *value > '9' || end == value || *end || v < 1 || v > max) {
      std::fprintf(stderr, "bad argument: %s %s (allowed: --delay-us 1..1000000, --trials 1..1000)\n", argv[i], value);
      std::exit(2);
    }
    (delay ? delay_us : trials) = v;
  }
}
static const char* gpu_name_or_exit() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::printf("no usable GPU: %s\n", err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device found");
    std::exit(77);
  }
  static cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  return prop.name;
}
static float measured_sleep_us(cudaStream_t s, long delay_us) {
  cudaEvent_t start, stop;
  sleep_on(s, 1);  // the first launch loads the kernel (lazy loading): that is not part of the delay
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, s));
  sleep_on(s, delay_us);
  CHECK(cudaEventRecord(stop, s));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  return ms * 1000;
}
static int verdict(long unsafe_wrong, long fixed_right, long trials) {
  if (unsafe_wrong < trials)
    std::printf("FAIL: the unsafe version did not go wrong in %ld of %ld trials (try a longer --delay-us)\n",
                trials - unsafe_wrong, trials);
  if (fixed_right < trials)
    std::printf("FAIL: the fixed version went wrong in %ld of %ld trials\n", trials - fixed_right, trials);
  return unsafe_wrong == trials && fixed_right == trials ? 0 : 1;
}

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
