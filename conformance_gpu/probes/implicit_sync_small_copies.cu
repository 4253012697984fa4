// A standalone probe of the legacy default stream's implicit synchronization with blocking streams, for
// host-to-device copies from pinned memory, by size. Each probe makes one stream's work write a buffer and
// then queues a copy of it on a stream that the documentation says must wait for that work; it counts the
// trials in which the copy delivered the new data. No harness: build it alone with
//   nvcc -std=c++17 -o probe implicit_sync_small_copies.cu && ./probe 4096 16384 65536 1048576
// Rule (CUDA Runtime API, "Stream synchronization behavior"): work on the legacy stream waits for all prior
// work on blocking streams, and work on a blocking stream waits for prior legacy-stream work.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CHECK(call)                                                       \
  do {                                                                    \
    const cudaError_t status_ = (call);                                   \
    if (status_ != cudaSuccess) {                                         \
      std::printf("%s failed: %s\n", #call, cudaGetErrorString(status_)); \
      std::exit(1);                                                       \
    }                                                                     \
  } while (0)

namespace {

constexpr int kTrials = 10;
constexpr unsigned long long kSleepNs = 5'000'000;  // the earlier work takes 5 ms: a copy that does not wait wins
constexpr unsigned char kOld = 1, kNew = 2;

__global__ void sleep_kernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

struct Buffers {
  size_t bytes;
  unsigned char *pinned, *readback, *dev, *dev2;
};

struct HostWrite {
  unsigned char* data;
  size_t bytes;
};
void CUDART_CB write_new_after_5ms(void* arg) {
  auto* w = static_cast<HostWrite*>(arg);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::memset(w->data, kNew, w->bytes);
}

void reset(const Buffers& b) {
  CHECK(cudaDeviceSynchronize());
  std::memset(b.pinned, kOld, b.bytes);
  CHECK(cudaMemset(b.dev, kOld, b.bytes));
  CHECK(cudaMemset(b.dev2, kOld, b.bytes));
  CHECK(cudaDeviceSynchronize());
}

bool device_holds_new(const Buffers& b) {
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(b.readback, b.dev, b.bytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < b.bytes; ++i)
    if (b.readback[i] != kNew) return false;
  return true;
}

void probe(size_t bytes) {
  Buffers b{bytes, nullptr, nullptr, nullptr, nullptr};
  CHECK(cudaMallocHost(&b.pinned, bytes));
  CHECK(cudaMallocHost(&b.readback, bytes));
  CHECK(cudaMalloc(&b.dev, bytes));
  CHECK(cudaMalloc(&b.dev2, bytes));
  cudaStream_t blocking;
  CHECK(cudaStreamCreate(&blocking));
  cudaEvent_t written;
  CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
  const cudaStream_t legacy = cudaStreamLegacy;
  HostWrite host_write{b.pinned, bytes};
  int counts[5] = {};
  for (int t = 0; t < kTrials; ++t) {
    // 1. A host function on the legacy stream writes the pinned source; the copy is on a blocking stream.
    reset(b);
    CHECK(cudaLaunchHostFunc(legacy, write_new_after_5ms, &host_write));
    CHECK(cudaMemcpyAsync(b.dev, b.pinned, bytes, cudaMemcpyHostToDevice, blocking));
    counts[0] += device_holds_new(b);
    // 2. A memset on a blocking stream (behind 5 ms of work) writes the pinned source; the copy is on legacy.
    reset(b);
    sleep_kernel<<<1, 1, 0, blocking>>>(kSleepNs);
    CHECK(cudaGetLastError());  // the launch
    CHECK(cudaMemsetAsync(b.pinned, kNew, bytes, blocking));
    CHECK(cudaMemcpyAsync(b.dev, b.pinned, bytes, cudaMemcpyHostToDevice, legacy));
    counts[1] += device_holds_new(b);
    // 3. The same with an event: cudaStreamWaitEvent orders the legacy copy explicitly.
    reset(b);
    sleep_kernel<<<1, 1, 0, blocking>>>(kSleepNs);
    CHECK(cudaGetLastError());  // the launch
    CHECK(cudaMemsetAsync(b.pinned, kNew, bytes, blocking));
    CHECK(cudaEventRecord(written, blocking));
    CHECK(cudaStreamWaitEvent(legacy, written, 0));
    CHECK(cudaMemcpyAsync(b.dev, b.pinned, bytes, cudaMemcpyHostToDevice, legacy));
    counts[2] += device_holds_new(b);
    // 4. The same as 2 with a device source: a device-to-device copy on legacy.
    reset(b);
    sleep_kernel<<<1, 1, 0, blocking>>>(kSleepNs);
    CHECK(cudaGetLastError());  // the launch
    CHECK(cudaMemsetAsync(b.dev2, kNew, bytes, blocking));
    CHECK(cudaMemcpyAsync(b.dev, b.dev2, bytes, cudaMemcpyDeviceToDevice, legacy));
    counts[3] += device_holds_new(b);
    // 5. The same as 1 on the same (legacy) stream: stream order, the baseline.
    reset(b);
    CHECK(cudaLaunchHostFunc(legacy, write_new_after_5ms, &host_write));
    CHECK(cudaMemcpyAsync(b.dev, b.pinned, bytes, cudaMemcpyHostToDevice, legacy));
    counts[4] += device_holds_new(b);
  }
  std::printf(
      "%9zu bytes: legacy host function -> blocking H2D %2d/%d | blocking memset -> legacy H2D %2d/%d | "
      "with an event %2d/%d | device-to-device %2d/%d | same stream %2d/%d\n",
      bytes, counts[0], kTrials, counts[1], kTrials, counts[2], kTrials, counts[3], kTrials, counts[4], kTrials);
  CHECK(cudaEventDestroy(written));
  CHECK(cudaStreamDestroy(blocking));
  CHECK(cudaFree(b.dev2));
  CHECK(cudaFree(b.dev));
  CHECK(cudaFreeHost(b.readback));
  CHECK(cudaFreeHost(b.pinned));
}

}  // namespace

int main(int argc, char** argv) {
  // The sizes are read first: a bad one is an error (exit 2) with or without a GPU.
  std::vector<size_t> sizes{4096, 16384, 32768, 65536, 1 << 20};
  if (argc > 1) sizes.clear();
  for (int i = 1; i < argc; ++i) {
    char* end = nullptr;
    const unsigned long bytes = std::strtoul(argv[i], &end, 10);
    // Digits only: strtoul alone would take " 5", "+5" and "-5" (as a huge number).
    if (argv[i][0] < '0' || argv[i][0] > '9' || end == argv[i] || *end || bytes < 1 || bytes > (1ul << 30)) {
      std::fprintf(stderr, "bad size: %s (allowed: 1 to %lu bytes)\n", argv[i], 1ul << 30);
      return 2;
    }
    sizes.push_back(bytes);
  }
  int device = 0, driver = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    std::printf("no usable GPU\n");
    return 77;
  }
  CHECK(cudaDriverGetVersion(&driver));
  std::printf("%s, CUDA driver %d: trials in which the copy delivered the new data (%d = it waited every time)\n",
              prop.name, driver, kTrials);
  for (const size_t bytes : sizes) probe(bytes);
  return 0;
}
