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

static void check(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s failed at %s:%d: %s\n", call, file, line, cudaGetErrorString(err));
  std::exit(1);
}
#define CHECK(call) check((call), #call, __FILE__, __LINE__)

constexpr size_t kBytes = 4 << 20;                            // 4 MiB
constexpr unsigned char kOriginal = 0xA5, kRewritten = 0x5A;  // the data, and the host's next write

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
