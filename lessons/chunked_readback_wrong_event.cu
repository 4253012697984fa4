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

static void check(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s failed at %s:%d: %s\n", call, file, line, cudaGetErrorString(err));
  std::exit(1);
}
#define CHECK(call) check((call), #call, __FILE__, __LINE__)

// 1 MiB in 4 chunks: small, because the sleep must outlast the host reading the first three.
constexpr int kChunks = 4;
constexpr size_t kBytes = 1 << 20, kChunk = kBytes / kChunks;
constexpr unsigned char kData = 0xA5, kStale = 0x00;  // what the device holds; what the host held before

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
