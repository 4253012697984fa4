#include <algorithm>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/kernel_loading.hpp"
#include "cuda/stream.hpp"
#include "sweep/cycle_sleep.hpp"

namespace hazardlab {
namespace {
__global__ void cycle_sleep_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}
}  // namespace

HAZARDLAB_KERNEL_LOADER(cycle_sleep_kernel)

void enqueue_cycle_sleep(cudaStream_t stream, long long cycles) {
  cycle_sleep_kernel<<<1, 1, 0, stream>>>(cycles);
  HL_CUDA_LAUNCHED("cycle_sleep_kernel");
}

double time_cycle_sleep_us(long long cycles) {
  Stream stream(StreamKind::NonBlocking);
  Event start(cudaEventDefault), end(cudaEventDefault);
  std::vector<float> ms;
  for (int run = 0; run < 3; ++run) {
    start.record(stream.get());
    enqueue_cycle_sleep(stream.get(), cycles);
    end.record(stream.get());
    end.synchronize();
    float elapsed = 0;
    HL_CUDA(cudaEventElapsedTime(&elapsed, start.get(), end.get()));
    ms.push_back(elapsed);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1000.0;
}

}  // namespace hazardlab
