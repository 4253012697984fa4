// The checker's cost on a memory-bound kernel loop: one stream, `y = a * x + y` over two large cudaMalloc'd
// arrays, a kernel per step, so the time is the GPU's memory bandwidth, not the launches. A checker that patches a
// kernel's memory instructions (exact footprints) pays per access here, where a launch-heavy loop pays per launch.
// Prints the median time per kernel over chunks of the loop; run it with and without the checker on the same GPU
// for the ratio (overhead_benchmark.py does, in interleaved rounds). A benchmark, not a test: it asserts nothing
// about time, and it checks that y holds what the steps add up to (exit 1 if not).
//   check-memory-overhead [STEPS] [ELEMENTS]      (defaults 400 steps; 16,777,216 floats: 64 MiB an array)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.hpp"
#include "loop_arguments.hpp"

__global__ void axpy(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

namespace {

constexpr int kChunkSteps = 20, kWarmUpSteps = 5;

constexpr const char* kUsage = "usage: check-memory-overhead [STEPS(20..100000)] [ELEMENTS(1..268435456)]\n";
static_assert(kChunkSteps == 20, "the usage names the fewest steps");

}  // namespace

int main(int argc, char** argv) {
  if (argc > 3) loop_usage(kUsage);
  const long steps = argc > 1 ? loop_argument(argv[1], kChunkSteps, 100000, kUsage) : 400;
  const int n = static_cast<int>(argc > 2 ? loop_argument(argv[2], 1, 1 << 28, kUsage) : 1 << 24);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no usable GPU\n");
    return 77;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const size_t bytes = sizeof(float) * static_cast<size_t>(n);
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  const std::vector<float> ones(static_cast<size_t>(n), 1.0f);
  CHECK(cudaMemcpy(x, ones.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(y, 0, bytes));
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const int threads = 256, blocks = std::min((n + threads - 1) / threads, prop.multiProcessorCount * 8);

  long step = 0;  // each step adds 1 to every element of y (x is 1, a is 1): exact in float below 2^24
  const auto run = [&](long k) {
    for (long end = step + k; step < end; ++step) {
      axpy<<<blocks, threads, 0, stream>>>(1.0f, x, y, n);
      CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamSynchronize(stream));
  };
  run(kWarmUpSteps);  // loads the kernel
  std::vector<double> us_per_kernel;
  for (long done = 0; done + kChunkSteps <= steps; done += kChunkSteps) {
    const auto start = std::chrono::steady_clock::now();
    run(kChunkSteps);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    us_per_kernel.push_back(us / kChunkSteps);
  }

  std::vector<float> result(static_cast<size_t>(n));
  CHECK(cudaMemcpy(result.data(), y, bytes, cudaMemcpyDeviceToHost));
  const float want = static_cast<float>(step);
  const long wrong = std::count_if(result.begin(), result.end(), [want](float v) { return v != want; });
  if (wrong > 0) {
    std::printf("WRONG: %ld of %d values are not %.0f\n", wrong, n, static_cast<double>(want));
    return 1;
  }
  std::sort(us_per_kernel.begin(), us_per_kernel.end());
  const size_t chunks = us_per_kernel.size();
  std::printf("gpu %s\n", prop.name);
  std::printf("mode memory steps %ld elements %d median_us %.3f p10_us %.3f p90_us %.3f gbps %.1f\n",
              step - kWarmUpSteps, n, us_per_kernel[chunks / 2], us_per_kernel[chunks / 10],
              us_per_kernel[chunks * 9 / 10], 3.0 * static_cast<double>(bytes) / us_per_kernel[chunks / 2] / 1e3);
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  return 0;
}
