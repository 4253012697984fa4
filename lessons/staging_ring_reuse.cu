// Lesson staging-ring-reuse: a ring of pinned staging slots refills a slot before its previous copy ran.
//
// PyTorch: a loader that stages batch i in `staging[i % 2]` (`staging[i % 2].copy_(batch)`), then
// `staging[i % 2].to('cuda', non_blocking=True)`, and refills the slot without waiting for its last copy.
// Rule (CUDA Runtime API, API synchronization behavior): an async copy from pinned memory may return before the
// copy has read its source: each slot is read when its copy runs, not when the call returns.
// Two slots, three batches: batch 2 refills slot 0 while batch 0's copy from it is still queued behind a sleep
// kernel, so batch 0 arrives holding batch 2's bytes, every time.
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

constexpr size_t kBytes = 1 << 20;       // 1 MiB a batch: the sleep must outlast the host filling two of them
constexpr int kSlots = 2, kBatches = 3;  // at least one batch more than slots: a slot is reused
static unsigned char batch_byte(int b) { return static_cast<unsigned char>(0x10 + b); }  // batch b is all this byte

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

// UNSAFE: a slot is refilled as soon as its turn comes again.
static void unsafe(unsigned char* slot[], unsigned char* dev, cudaStream_t s, long delay_us) {
  sleep_on(s, delay_us);  // the device is behind: every copy below waits behind this kernel
  for (int b = 0; b < kBatches; ++b) {
    const int i = b % kSlots;
    std::memset(slot[i], batch_byte(b), kBytes);  // BUG: the slot's previous copy may not have read it yet
    CHECK(cudaMemcpyAsync(dev + b * kBytes, slot[i], kBytes, cudaMemcpyHostToDevice, s));
  }
}

// FIXED: an event per slot, recorded after the slot's copy and waited for before the slot is refilled.
static void fixed(unsigned char* slot[], unsigned char* dev, cudaStream_t s, cudaEvent_t slot_read[], long delay_us) {
  sleep_on(s, delay_us);
  for (int b = 0; b < kBatches; ++b) {
    const int i = b % kSlots;
    CHECK(cudaEventSynchronize(slot_read[i]));  // the slot's previous copy has read it (at once if none yet)
    std::memset(slot[i], batch_byte(b), kBytes);
    CHECK(cudaMemcpyAsync(dev + b * kBytes, slot[i], kBytes, cudaMemcpyHostToDevice, s));
    CHECK(cudaEventRecord(slot_read[i], s));
  }
}

// Once the stream has drained: did any batch arrive with bytes other than its own? Then clears the device.
static bool a_batch_arrived_wrong(unsigned char* dev, unsigned char* readback, cudaStream_t s) {
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(readback, dev, kBatches * kBytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemset(dev, 0, kBatches * kBytes));
  CHECK(cudaDeviceSynchronize());
  size_t wrong = 0;
  for (size_t i = 0; i < kBatches * kBytes; ++i) wrong += readback[i] != batch_byte(int(i / kBytes));
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
  unsigned char *slot[kSlots], *readback, *dev;
  cudaEvent_t slot_read[kSlots];
  cudaStream_t s;
  for (int i = 0; i < kSlots; ++i) {  // allocating may synchronize the device: all done before the trials
    CHECK(cudaMallocHost(&slot[i], kBytes));
    CHECK(cudaEventCreate(&slot_read[i]));
  }
  CHECK(cudaMallocHost(&readback, kBatches * kBytes));
  CHECK(cudaMalloc(&dev, kBatches * kBytes));
  CHECK(cudaStreamCreate(&s));
  std::printf("staging-ring-reuse on %s, %d slots, %d batches, sleep %ld us ahead of the copies (measured %.0f us)\n",
              gpu, kSlots, kBatches, delay_us, measured_sleep_us(s, delay_us));
  long unsafe_wrong = 0, fixed_right = 0;
  for (long t = 0; t < trials; ++t) {
    unsafe(slot, dev, s, delay_us);
    unsafe_wrong += a_batch_arrived_wrong(dev, readback, s);
    fixed(slot, dev, s, slot_read, delay_us);
    fixed_right += !a_batch_arrived_wrong(dev, readback, s);
  }
  std::printf("unsafe: batch 0 arrived holding another batch's bytes in %ld of %ld trials\n", unsafe_wrong, trials);
  std::printf("fixed:  every batch arrived holding its own bytes in %ld of %ld trials\n", fixed_right, trials);
  return verdict(unsafe_wrong, fixed_right, trials);
}
