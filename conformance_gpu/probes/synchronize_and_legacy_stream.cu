// A standalone probe of what a host synchronize waits for when the legacy stream's implicit
// synchronization is involved: a cudaEventRecord on a blocking stream behind held legacy-stream work,
// a cudaStreamSynchronize of the legacy stream behind held blocking-stream work, and work on a second
// blocking stream queued after a marker on the legacy stream behind held blocking-stream work (does the
// marker pass rule 2's wait on to what follows it?). One stream is held
// for 5 ms, by a kernel spinning until the host opens it (a gate) or by a kernel sleeping; a call that
// returns in under 2 ms did not wait. No harness: build it alone with
//   nvcc -std=c++17 -o probe synchronize_and_legacy_stream.cu && ./probe
// Rule (CUDA Runtime API, "Stream synchronization behavior"): work on a blocking stream waits for prior
// legacy-stream work, and legacy-stream work for prior blocking-stream work. Whether an event record is
// such work, and what synchronizing the legacy stream itself waits for, the documentation does not say.
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
enum class Held { Legacy, Blocking, NonBlocking };  // the stream the hold is queued on
// What is queued after the hold: on the blocking stream, or (Legacy*) on the legacy stream followed by a
// kernel on a second blocking stream.
enum class Marker { Record, Wait, Kernel, None, LegacyRecord, LegacyWait, LegacyKernel };
enum class Sync { BlockingStream, LegacyStream, Event, SecondBlockingStream };

struct Probe {
  const char* name;
  Hold hold;
  Held held;
  bool stream_used_before;
  Marker marker;
  Sync sync;
};

int* open_flag = nullptr;  // mapped pinned memory the spinning kernel reads

// One trial; true when the synchronize waited for the held legacy work.
bool waited(const Probe& p) {
  cudaStream_t blocking, second_blocking, non_blocking;
  CHECK(cudaStreamCreate(&blocking));
  CHECK(cudaStreamCreate(&second_blocking));
  CHECK(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking));
  cudaEvent_t event, never_recorded;
  CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&never_recorded, cudaEventDisableTiming));
  if (p.stream_used_before) {
    nothing<<<1, 1, 0, blocking>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(blocking));
  }
  *reinterpret_cast<volatile int*>(open_flag) = 0;
  int* flag_on_device = nullptr;
  CHECK(cudaHostGetDevicePointer(&flag_on_device, open_flag, 0));
  const cudaStream_t held = p.held == Held::Legacy     ? cudaStreamLegacy
                            : p.held == Held::Blocking ? blocking
                                                       : non_blocking;
  if (p.hold == Hold::Gate)
    spin_until_open<<<1, 1, 0, held>>>(flag_on_device);
  else
    sleep_for<<<1, 1, 0, held>>>(5'000'000ULL);
  CHECK(cudaGetLastError());
  std::thread opener([] {
    std::this_thread::sleep_for(kHold);
    *reinterpret_cast<volatile int*>(open_flag) = 1;
  });
  const auto start = std::chrono::steady_clock::now();
  if (p.marker == Marker::Record) CHECK(cudaEventRecord(event, blocking));
  if (p.marker == Marker::Wait) CHECK(cudaStreamWaitEvent(blocking, never_recorded, 0));
  if (p.marker == Marker::Kernel) nothing<<<1, 1, 0, blocking>>>();
  if (p.marker == Marker::LegacyRecord) CHECK(cudaEventRecord(event, cudaStreamLegacy));
  if (p.marker == Marker::LegacyWait) CHECK(cudaStreamWaitEvent(cudaStreamLegacy, never_recorded, 0));
  if (p.marker == Marker::LegacyKernel) nothing<<<1, 1, 0, cudaStreamLegacy>>>();
  if (p.sync == Sync::SecondBlockingStream) nothing<<<1, 1, 0, second_blocking>>>();
  CHECK(cudaGetLastError());
  if (p.sync == Sync::BlockingStream) CHECK(cudaStreamSynchronize(blocking));
  if (p.sync == Sync::LegacyStream) CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  if (p.sync == Sync::Event) CHECK(cudaEventSynchronize(event));
  if (p.sync == Sync::SecondBlockingStream) CHECK(cudaStreamSynchronize(second_blocking));
  const bool result = std::chrono::steady_clock::now() - start >= kWaited;
  opener.join();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventDestroy(never_recorded));
  CHECK(cudaEventDestroy(event));
  CHECK(cudaStreamDestroy(non_blocking));
  CHECK(cudaStreamDestroy(second_blocking));
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
      {"gate on legacy, record on a new blocking stream, cudaStreamSynchronize(blocking)", Hold::Gate, Held::Legacy,
       false, Marker::Record, Sync::BlockingStream},
      {"gate on legacy, record on a used blocking stream, cudaStreamSynchronize(blocking)", Hold::Gate, Held::Legacy,
       true, Marker::Record, Sync::BlockingStream},
      {"gate on legacy, record on a new blocking stream, cudaEventSynchronize", Hold::Gate, Held::Legacy, false,
       Marker::Record, Sync::Event},
      {"sleep on legacy, record on a new blocking stream, cudaStreamSynchronize(blocking)", Hold::Sleep, Held::Legacy,
       false, Marker::Record, Sync::BlockingStream},
      {"gate on legacy, a wait for a never-recorded event on a new blocking stream, cudaStreamSynchronize(blocking)",
       Hold::Gate, Held::Legacy, false, Marker::Wait, Sync::BlockingStream},
      {"gate on legacy, a kernel on a new blocking stream, cudaStreamSynchronize(blocking) (baseline)", Hold::Gate,
       Held::Legacy, false, Marker::Kernel, Sync::BlockingStream},
      {"gate on a blocking stream, cudaStreamSynchronize(legacy)", Hold::Gate, Held::Blocking, false, Marker::None,
       Sync::LegacyStream},
      {"gate on a non-blocking stream, cudaStreamSynchronize(legacy) (exempt)", Hold::Gate, Held::NonBlocking, false,
       Marker::None, Sync::LegacyStream},
      {"gate on a blocking stream, record on legacy, a kernel on a second blocking stream, its synchronize", Hold::Gate,
       Held::Blocking, false, Marker::LegacyRecord, Sync::SecondBlockingStream},
      {"gate on a blocking stream, a wait on legacy, a kernel on a second blocking stream, its synchronize", Hold::Gate,
       Held::Blocking, false, Marker::LegacyWait, Sync::SecondBlockingStream},
      {"gate on a blocking stream, a kernel on legacy, a kernel on a second blocking stream, its synchronize "
       "(baseline)",
       Hold::Gate, Held::Blocking, false, Marker::LegacyKernel, Sync::SecondBlockingStream},
      {"gate on a blocking stream, nothing on legacy, a kernel on a second blocking stream, its synchronize "
       "(independent)",
       Hold::Gate, Held::Blocking, false, Marker::None, Sync::SecondBlockingStream},
  };

  std::printf("%s, CUDA driver %d: trials in which the host waited for the held stream (%d = every time)\n", prop.name,
              driver, kTrials);
  for (const Probe& p : probes) {
    int count = 0;
    for (int t = 0; t < kTrials; ++t) count += waited(p);
    std::printf("  %2d/%d  %s\n", count, kTrials, p.name);
  }
  CHECK(cudaFreeHost(open_flag));
  return 0;
}
