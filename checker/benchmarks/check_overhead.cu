// The checker's cost on the loop it slows most: the host writes a pinned buffer, copies it to the device
// asynchronously and synchronizes, over and over. Prints the median time per iteration; run it with and
// without `hazardlab check` (and under compute-sanitizer) on the same GPU to get the ratio
// (overhead_benchmark.py does, in interleaved rounds). A benchmark, not a test: it asserts nothing about time.
//   check-overhead [--ends] BYTES ITERATIONS
// The host rewrites the whole buffer, or with --ends one byte at each end: the harder case for the checker,
// whose cost per copy is then not hidden behind the memset.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.hpp"

int main(int argc, char** argv) {
  const bool ends = argc > 1 && std::strcmp(argv[1], "--ends") == 0;
  const int first = ends ? 2 : 1;
  char* end = nullptr;
  const long bytes = argc == first + 2 ? std::strtol(argv[first], &end, 10) : 0;
  const long iterations = argc == first + 2 && *end == '\0' ? std::strtol(argv[first + 1], &end, 10) : 0;
  if (bytes < 1 || bytes > (1L << 30) || iterations < 1 || iterations > 1000000 || *end != '\0') {
    std::fprintf(stderr, "usage: check-overhead [--ends] BYTES(1..1073741824) ITERATIONS(1..1000000)\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no usable GPU\n");
    return 77;
  }
  unsigned char *host, *device;
  cudaStream_t stream;
  CHECK(cudaMallocHost(&host, bytes));
  CHECK(cudaMalloc(&device, bytes));
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<double> us;
  for (long i = 0; i < iterations + 10; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (ends) {  // the host writes one byte at each end...
      host[0] = static_cast<unsigned char>(i);
      host[bytes - 1] = static_cast<unsigned char>(i);
    } else {
      std::memset(host, static_cast<int>(i), static_cast<size_t>(bytes));  // the host rewrites the buffer...
    }
    CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));  // ...copies it...
    CHECK(cudaStreamSynchronize(stream));  // ...and waits before the next rewrite
    if (i >= 10) us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(us.begin(), us.end());
  std::printf("mode %s bytes %ld iterations %ld median_us %.2f p10_us %.2f p90_us %.2f\n", ends ? "ends" : "fill", bytes,
              iterations, us[us.size() / 2], us[us.size() / 10], us[us.size() * 9 / 10]);
  CHECK(cudaFreeHost(host));
  CHECK(cudaFree(device));
  return 0;
}
