#pragma once
// What every lesson does the same way, so that each lesson's file holds only its lesson: the CUDA check, the
// sleep kernel that holds a stream for a bounded time, the arguments, the GPU, the measured sleep and the exit
// status (lessons/README.md, "Build and run"). Plain CUDA like the lessons, and nothing of the project: a lesson
// with this file beside it still builds alone (`nvcc -o lesson lessons/h2d_pinned_mutate.cu`).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// A failed CUDA call ends the program with status 1, naming the call, its file and line.
static void check(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s failed at %s:%d: %s\n", call, file, line, cudaGetErrorString(err));
  std::exit(1);
}
#define CHECK(call) check((call), #call, __FILE__, __LINE__)

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

// The arguments (--delay-us, --trials; 2 on a bad one), the GPU (77 without one), the delay the sleep
// achieved, and the exit status (0 when the unsafe version went wrong and the fixed one right in every trial).
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
