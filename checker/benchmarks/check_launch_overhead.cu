// The checker's cost on a launch-heavy loop, the shape of a training step: short kernels on two streams ordered
// with events, every kernel reading constant inputs and writing outputs through pointer arguments into
// cudaMalloc'd buffers. Each step, stream `compute` waits until the update has read the activation slot it is
// about to overwrite, runs `forward` (input and weights in, the slot out) and records an event; stream `update`
// waits for that event, runs `accumulate` (the slot in, the accumulator read and written) and records an event
// that frees the slot. Two slots, so the streams overlap; no race. Prints the median time per launch over chunks
// of the loop; run it with and without `hazardlab check` on the same GPU for the ratio (overhead_benchmark.py
// does, in interleaved rounds). A benchmark, not a test: it asserts nothing about time, and it checks that the
// accumulator holds what the steps add up to (exit 1 if not).
//   check-launch-overhead [STEPS] [ELEMENTS]      (defaults 10000 steps, that is 20,000 launches; 4096 floats)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.hpp"
#include "loop_arguments.hpp"

// act = input * weight * k: with input 1 and weight 1, each step adds k = step % 4 + 1 to every element.
__global__ void forward(const float* __restrict__ input, const float* __restrict__ weight, float* __restrict__ act,
                        int n, float k) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    act[i] = input[i] * weight[i] * k;
}
__global__ void accumulate(const float* __restrict__ act, float* __restrict__ total, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) total[i] += act[i];
}

namespace {

constexpr int kSlots = 2, kChunkSteps = 250, kWarmUpSteps = 20;

struct Loop {
  int n = 0;
  float *input = nullptr, *weight = nullptr, *total = nullptr, *act[kSlots] = {};
  cudaStream_t compute = nullptr, update = nullptr;
  cudaEvent_t produced[kSlots] = {}, consumed[kSlots] = {};
  long step = 0;  // steps run so far, warm-up included: they decide what the accumulator holds

  void run(long steps) {
    const int threads = 128, blocks = std::min((n + threads - 1) / threads, 64);
    for (long end = step + steps; step < end; ++step) {
      const int s = static_cast<int>(step % kSlots);
      if (step >= kSlots) CHECK(cudaStreamWaitEvent(compute, consumed[s], 0));  // the slot was read
      forward<<<blocks, threads, 0, compute>>>(input, weight, act[s], n, static_cast<float>(step % 4 + 1));
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(produced[s], compute));
      CHECK(cudaStreamWaitEvent(update, produced[s], 0));  // the slot was written
      accumulate<<<blocks, threads, 0, update>>>(act[s], total, n);
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(consumed[s], update));
    }
  }
  void drain() const {
    CHECK(cudaStreamSynchronize(compute));
    CHECK(cudaStreamSynchronize(update));
  }
};

constexpr const char* kUsage = "usage: check-launch-overhead [STEPS(250..1000000)] [ELEMENTS(1..16777216)]\n";
static_assert(kChunkSteps == 250, "the usage names the fewest steps");

}  // namespace

int main(int argc, char** argv) {
  if (argc > 3) loop_usage(kUsage);
  const long steps = argc > 1 ? loop_argument(argv[1], kChunkSteps, 1000000, kUsage) : 10000;
  Loop loop;
  loop.n = static_cast<int>(argc > 2 ? loop_argument(argv[2], 1, 1 << 24, kUsage) : 4096);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no usable GPU\n");
    return 77;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const size_t bytes = sizeof(float) * static_cast<size_t>(loop.n);
  const std::vector<float> ones(static_cast<size_t>(loop.n), 1.0f);
  for (float** buffer : {&loop.input, &loop.weight, &loop.total, &loop.act[0], &loop.act[1]}) {
    CHECK(cudaMalloc(buffer, bytes));
  }
  CHECK(cudaMemcpy(loop.input, ones.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(loop.weight, ones.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(loop.total, 0, bytes));
  CHECK(cudaStreamCreateWithFlags(&loop.compute, cudaStreamNonBlocking));  // as PyTorch's side streams
  CHECK(cudaStreamCreateWithFlags(&loop.update, cudaStreamNonBlocking));
  for (int s = 0; s < kSlots; ++s) {
    CHECK(cudaEventCreateWithFlags(&loop.produced[s], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&loop.consumed[s], cudaEventDisableTiming));
  }
  CHECK(cudaDeviceSynchronize());  // the set-up (on the legacy stream) before the streams' work

  loop.run(kWarmUpSteps);  // loads the kernels
  loop.drain();
  std::vector<double> us_per_launch;
  for (long done = 0; done + kChunkSteps <= steps; done += kChunkSteps) {
    const auto start = std::chrono::steady_clock::now();
    loop.run(kChunkSteps);
    loop.drain();
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    us_per_launch.push_back(us / (2.0 * kChunkSteps));
  }
  CHECK(cudaDeviceSynchronize());

  std::vector<float> total(static_cast<size_t>(loop.n));
  CHECK(cudaMemcpy(total.data(), loop.total, bytes, cudaMemcpyDeviceToHost));
  double want = 0;  // every step added step % 4 + 1 (exact in float: below 2^24)
  for (long s = 0; s < loop.step; ++s) want += static_cast<double>(s % 4 + 1);
  const long wrong = std::count_if(total.begin(), total.end(), [want](float v) { return v != want; });
  if (wrong > 0) {
    std::printf("WRONG: %ld of %d accumulated values are not %.0f\n", wrong, loop.n, want);
    return 1;
  }

  std::sort(us_per_launch.begin(), us_per_launch.end());
  const size_t chunks = us_per_launch.size();
  std::printf("gpu %s\n", prop.name);
  std::printf("mode launch steps %ld launches %ld elements %d median_us %.3f p10_us %.3f p90_us %.3f\n",
              loop.step - kWarmUpSteps, 2 * (loop.step - kWarmUpSteps), loop.n, us_per_launch[chunks / 2],
              us_per_launch[chunks / 10], us_per_launch[chunks * 9 / 10]);
  for (int s = 0; s < kSlots; ++s) {
    CHECK(cudaEventDestroy(loop.produced[s]));
    CHECK(cudaEventDestroy(loop.consumed[s]));
  }
  CHECK(cudaStreamDestroy(loop.compute));
  CHECK(cudaStreamDestroy(loop.update));
  for (float* buffer : {loop.input, loop.weight, loop.total, loop.act[0], loop.act[1]}) CHECK(cudaFree(buffer));
  return 0;
}
