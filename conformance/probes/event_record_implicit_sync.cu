// A standalone probe: does a cudaEventRecord on a blocking stream wait for earlier legacy-stream work?
// The legacy stream is held for 5 ms, by a kernel spinning until the host opens it (a gate) or by a
// kernel sleeping; then an event is recorded on a blocking stream and the host synchronizes. A call
// that returns in under 2 ms did not wait. No harness: build it alone with
//   nvcc -std=c++17 -o probe event_record_implicit_sync.cu && ./probe
// Rule (CUDA Runtime API, "Stream synchronization behavior"): work on a blocking stream waits for prior
// legacy-stream work. Whether an event record counts as such work the documentation does not say.
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

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
constexpr auto kHold = std::chrono::milliseconds(5);
constexpr auto kWaited = std::chrono::milliseconds(2);

__global__ void spin_until_open(volatile int* open) {
  // Bounded: 2 s at most, so a host that never opens cannot hang the probe.
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (!*open && now - start < 2'000'000'000ULL);
}

__global__ void sleep_for(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

__global__ void nothing() {}

enum class Hold { Gate, Sleep };
enum class Marker { Record, Kernel };
enum class Sync { Stream, Event };

struct Probe {
  const char* name;
  Hold hold;
  bool stream_used_before;
  Marker marker;
  Sync sync;
};

int* open_flag = nullptr;  // mapped pinned memory the spinning kernel reads

// One trial; true when the synchronize waited for the held legacy work.
bool waited(const Probe& p) {
  cudaStream_t blocking;
  CHECK(cudaStreamCreate(&blocking));
  cudaEvent_t event;
  CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  if (p.stream_used_before) {
    nothing<<<1, 1, 0, blocking>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(blocking));
  }
  *reinterpret_cast<volatile int*>(open_flag) = 0;
  int* flag_on_device = nullptr;
  CHECK(cudaHostGetDevicePointer(&flag_on_device, open_flag, 0));
  if (p.hold == Hold::Gate)
    spin_until_open<<<1, 1, 0, cudaStreamLegacy>>>(flag_on_device);
  else
    sleep_for<<<1, 1, 0, cudaStreamLegacy>>>(5'000'000ULL);
  CHECK(cudaGetLastError());
  std::thread opener([] {
    std::this_thread::sleep_for(kHold);
    *reinterpret_cast<volatile int*>(open_flag) = 1;
  });
  const auto start = std::chrono::steady_clock::now();
  if (p.marker == Marker::Record)
    CHECK(cudaEventRecord(event, blocking));
  else
    nothing<<<1, 1, 0, blocking>>>();
  CHECK(cudaGetLastError());
  if (p.sync == Sync::Stream)
    CHECK(cudaStreamSynchronize(blocking));
  else
    CHECK(cudaEventSynchronize(event));
  const bool result = std::chrono::steady_clock::now() - start >= kWaited;
  opener.join();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventDestroy(event));
  CHECK(cudaStreamDestroy(blocking));
  return result;
}

}  // namespace

int main() {
  int device = 0, driver = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    std::printf("no usable GPU\n");
    return 77;
  }
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&open_flag, sizeof(int), cudaHostAllocMapped));
  const Probe probes[] = {
      {"gate on legacy, record on a new blocking stream, cudaStreamSynchronize", Hold::Gate, false, Marker::Record,
       Sync::Stream},
      {"gate on legacy, record on a used blocking stream, cudaStreamSynchronize", Hold::Gate, true, Marker::Record,
       Sync::Stream},
      {"gate on legacy, record on a new blocking stream, cudaEventSynchronize", Hold::Gate, false, Marker::Record,
       Sync::Event},
      {"sleep on legacy, record on a new blocking stream, cudaStreamSynchronize", Hold::Sleep, false, Marker::Record,
       Sync::Stream},
      {"gate on legacy, a kernel on a new blocking stream, cudaStreamSynchronize (baseline)", Hold::Gate, false,
       Marker::Kernel, Sync::Stream},
  };
  std::printf("%s, CUDA driver %d: trials in which the host waited for the held legacy stream (%d = every time)\n",
              prop.name, driver, kTrials);
  for (const Probe& p : probes) {
    int count = 0;
    for (int t = 0; t < kTrials; ++t) count += waited(p);
    std::printf("  %2d/%d  %s\n", count, kTrials, p.name);
  }
  CHECK(cudaFreeHost(open_flag));
  return 0;
}
