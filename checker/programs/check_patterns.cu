// Transfer patterns for `hazardlab check`, each unsafe and guarded, with no gate and no delay: the checker
// must find every unsafe one whether or not its race went wrong, and stay silent on every guarded one. The
// kernel-*-mapped patterns are found under `--kernels-own-mapped-memory`; kernel-publishes-through-flag is
// correct in every form, and clean by default.
//   check-patterns PATTERN FORM     (FORM: unsafe, or a guard: stream-synchronize, event-synchronize,
//                                    event-query, stream-query, host-function, device-synchronize)
//   check-patterns --list           every PATTERN FORM pair and what the checker must say of it
// Exit 77 without a GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuda_check.hpp"

constexpr size_t kBytes = 1 << 20;

// The host waits for the copy the way `form` says; "unsafe" does not wait at all.
struct Waiter {
  std::string form;
  cudaStream_t stream;
  cudaEvent_t event{};
  std::mutex m;
  std::condition_variable cv;
  bool signalled = false;

  Waiter(std::string f, cudaStream_t s) : form(std::move(f)), stream(s) { CHECK(cudaEventCreate(&event)); }
  ~Waiter() { cudaEventDestroy(event); }
  // Right after the copy is issued.
  void after_copy() {
    if (form == "event-synchronize" || form == "event-query") CHECK(cudaEventRecord(event, stream));
    if (form == "host-function") {
      signalled = false;
      CHECK(cudaLaunchHostFunc(stream, [](void* self) {
        auto* w = static_cast<Waiter*>(self);
        std::lock_guard lock(w->m);
        w->signalled = true;
        w->cv.notify_all();
      }, this));
    }
  }
  // Before the host touches the buffer again.
  void wait() {
    if (form == "stream-synchronize") CHECK(cudaStreamSynchronize(stream));
    if (form == "event-synchronize") CHECK(cudaEventSynchronize(event));
    if (form == "device-synchronize") CHECK(cudaDeviceSynchronize());
    if (form == "event-query" || form == "stream-query") {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      for (;;) {
        const cudaError_t r = form == "event-query" ? cudaEventQuery(event) : cudaStreamQuery(stream);
        if (r == cudaSuccess) break;
        if (r != cudaErrorNotReady) CHECK(r);
        if (std::chrono::steady_clock::now() > give_up) {
          std::fprintf(stderr, "the %s guard was still polling after 10 s\n", form.c_str());
          std::exit(1);
        }
      }
    }
    if (form == "host-function") {
      std::unique_lock lock(m);
      if (!cv.wait_for(lock, std::chrono::seconds(10), [&] { return signalled; })) {
        std::fprintf(stderr, "the host function did not run within 10 s\n");
        std::exit(1);
      }
    }
  }
};

struct Gpu {
  unsigned char* device = nullptr;
  cudaStream_t stream{};
  Gpu() {
    CHECK(cudaMalloc(&device, 4 * kBytes));
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
};

using Pattern = std::function<void(Gpu&, Waiter&)>;

// h2d-pinned-mutate: rewrite the pinned source after cudaMemcpyAsync.
void h2d_pinned(Gpu& g, Waiter& w) {
  unsigned char* host;
  CHECK(cudaMallocHost(&host, kBytes));
  std::memset(host, 1, kBytes);
  CHECK(cudaMemcpyAsync(g.device, host, kBytes, cudaMemcpyHostToDevice, g.stream));
  w.after_copy();
  w.wait();
  host[kBytes / 2] = 2;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(host));
}

// d2h-pinned-read-early: read the destination of a device-to-host copy.
void d2h_pinned(Gpu& g, Waiter& w) {
  unsigned char* host;
  CHECK(cudaMallocHost(&host, kBytes));
  CHECK(cudaMemsetAsync(g.device, 7, kBytes, g.stream));
  CHECK(cudaMemcpyAsync(host, g.device, kBytes, cudaMemcpyDeviceToHost, g.stream));
  w.after_copy();
  w.wait();
  volatile unsigned char seen = host[100];
  (void)seen;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(host));
}

// registered-h2d-mutate: malloc'd memory made pinned by cudaHostRegister, with neighbours in its pages.
void registered(Gpu& g, Waiter& w) {
  std::vector<unsigned char> storage(kBytes + 8192, 3);
  unsigned char* host = storage.data() + 4096;
  CHECK(cudaHostRegister(host, kBytes, cudaHostRegisterDefault));
  CHECK(cudaMemcpyAsync(g.device, host + 10, kBytes - 20, cudaMemcpyHostToDevice, g.stream));
  w.after_copy();
  host[5] = 9;  // a neighbour in the same page, outside the copy: never a finding
  w.wait();
  host[kBytes / 3] = 4;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaHostUnregister(host));
}

// write-combined-memory: the same hazard on write-combined pinned memory.
void write_combined(Gpu& g, Waiter& w) {
  unsigned char* host;
  CHECK(cudaHostAlloc(&host, kBytes, cudaHostAllocWriteCombined));
  CHECK(cudaMemcpyAsync(g.device, host, kBytes, cudaMemcpyHostToDevice, g.stream));
  w.after_copy();
  w.wait();
  host[0] = 5;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(host));
}

// pinned-pool-reuse: a pool hands a block back out while its copy may be pending.
void pinned_pool(Gpu& g, Waiter& w) {
  std::vector<unsigned char*> pool(2);
  for (auto& b : pool) CHECK(cudaMallocHost(&b, kBytes));
  unsigned char* block = pool.back();  // first user
  std::memset(block, 1, kBytes);
  CHECK(cudaMemcpyAsync(g.device, block, kBytes, cudaMemcpyHostToDevice, g.stream));
  w.after_copy();
  w.wait();  // the guard: the pool waits before it hands the block out again
  unsigned char* again = pool.back();  // second user fills it
  std::memset(again, 2, kBytes);
  CHECK(cudaDeviceSynchronize());
  for (auto b : pool) CHECK(cudaFreeHost(b));
}

// staging-ring-reuse: a ring of 3 pinned slots refilled batch after batch.
void staging_ring(Gpu& g, Waiter& w) {
  constexpr int kSlots = 3, kBatches = 7;
  unsigned char* ring;
  CHECK(cudaMallocHost(&ring, kSlots * kBytes));
  std::vector<Waiter*> slot_waiters;
  for (int s = 0; s < kSlots; ++s) slot_waiters.push_back(new Waiter(w.form, g.stream));
  for (int b = 0; b < kBatches; ++b) {
    const int s = b % kSlots;
    if (b >= kSlots) slot_waiters[s]->wait();  // guarded: the slot's previous copy is done
    std::memset(ring + s * kBytes, b, kBytes);
    CHECK(cudaMemcpyAsync(g.device + s * kBytes, ring + s * kBytes, kBytes, cudaMemcpyHostToDevice, g.stream));
    slot_waiters[s]->after_copy();
  }
  CHECK(cudaDeviceSynchronize());
  for (Waiter* x : slot_waiters) delete x;
  CHECK(cudaFreeHost(ring));
}

// chunked-readback-wrong-event: the last chunk is read after waiting on the one before it (unsafe), or
// on its own event (guarded).
void chunked(Gpu& g, Waiter& w) {
  constexpr int kChunks = 4;
  const size_t chunk = kBytes / kChunks;
  unsigned char* host;
  CHECK(cudaMallocHost(&host, kBytes));
  cudaEvent_t done[kChunks];
  for (auto& e : done) CHECK(cudaEventCreate(&e));
  for (int k = 0; k < kChunks; ++k) {
    CHECK(cudaMemcpyAsync(host + k * chunk, g.device + k * chunk, chunk, cudaMemcpyDeviceToHost, g.stream));
    CHECK(cudaEventRecord(done[k], g.stream));
  }
  const bool safe = w.form != "unsafe";
  CHECK(cudaEventSynchronize(done[safe ? kChunks - 1 : kChunks - 2]));
  volatile unsigned char last = host[(kChunks - 1) * chunk + 1];
  (void)last;
  CHECK(cudaDeviceSynchronize());
  for (auto& e : done) CHECK(cudaEventDestroy(e));
  CHECK(cudaFreeHost(host));
}

// graph-memcpy-by-reference: a graph's memcpy node reads the host buffer when the graph runs.
void graph_memcpy(Gpu& g, Waiter& w) {
  unsigned char* host;
  CHECK(cudaMallocHost(&host, kBytes));
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t node;
  CHECK(cudaGraphAddMemcpyNode1D(&node, graph, nullptr, 0, g.device, host, kBytes, cudaMemcpyHostToDevice));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, g.stream));
  w.after_copy();
  w.wait();
  host[1] = 6;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFreeHost(host));
}

// A pitched upload: rows owned, the gaps between them not.
void pitched(Gpu& g, Waiter& w) {
  unsigned char* host;
  CHECK(cudaMallocHost(&host, kBytes));
  const size_t width = 1000, pitch = 4096, rows = 100;
  CHECK(cudaMemcpy2DAsync(g.device, width, host, pitch, width, rows, cudaMemcpyHostToDevice, g.stream));
  w.after_copy();
  host[pitch + width + 10] = 1;  // between two rows: never a finding
  w.wait();
  host[pitch * 7 + 3] = 1;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(host));
}

// free-while-in-flight: freeing a pinned buffer an upload still reads.
void free_in_flight(Gpu& g, Waiter& w) {
  unsigned char* host;
  CHECK(cudaMallocHost(&host, kBytes));
  CHECK(cudaMemcpyAsync(g.device, host, kBytes, cudaMemcpyHostToDevice, g.stream));
  w.after_copy();
  w.wait();
  CHECK(cudaFreeHost(host));
  CHECK(cudaDeviceSynchronize());
}

// A program that relies on the legacy stream's implicit synchronization through a small pinned upload,
// which a GPU was measured not to keep (conformance/README.md, deviation 1): found, naming the deviation.
void relies_on_small_upload(Gpu& g, Waiter& w) {
  unsigned char *landing, *small;
  CHECK(cudaMallocHost(&landing, kBytes));
  CHECK(cudaMallocHost(&small, 4096));
  cudaStream_t producer, consumer;
  CHECK(cudaStreamCreate(&producer));  // blocking streams: ordered with the legacy stream
  CHECK(cudaStreamCreate(&consumer));
  Waiter own(w.form, producer);
  CHECK(cudaMemcpyAsync(landing, g.device, kBytes, cudaMemcpyDeviceToHost, producer));
  own.after_copy();
  CHECK(cudaMemcpyAsync(g.device + kBytes, small, 1024, cudaMemcpyHostToDevice, 0));  // waits for `producer`?
  CHECK(cudaMemsetAsync(g.device + 2 * kBytes, 0, 16, consumer));  // waits for the legacy stream
  CHECK(cudaStreamSynchronize(consumer));
  own.wait();
  volatile unsigned char seen = landing[3];
  (void)seen;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaStreamDestroy(producer));
  CHECK(cudaStreamDestroy(consumer));
  CHECK(cudaFreeHost(small));
  CHECK(cudaFreeHost(landing));
}

// Kernels on mapped pinned memory (`hazardlab check --kernels-own-mapped-memory`): a kernel handed a pointer into
// pinned host memory reads or writes it while it runs, as a copy does its host end.
__global__ void scale(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2.0f * in[i];
}
constexpr int kFloats = static_cast<int>(kBytes / sizeof(float));

// kernel-writes-mapped: a kernel writes its results straight into mapped pinned memory; the host reads them.
void kernel_writes_mapped(Gpu& g, Waiter& w) {
  float* out;
  CHECK(cudaHostAlloc(&out, kBytes, cudaHostAllocMapped));
  CHECK(cudaMemsetAsync(g.device, 0, kBytes, g.stream));
  scale<<<64, 256, 0, g.stream>>>(reinterpret_cast<const float*>(g.device), out, kFloats);
  CHECK(cudaGetLastError());
  w.after_copy();
  w.wait();
  volatile float seen = out[0];
  (void)seen;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(out));
}

// kernel-reads-mapped: a kernel reads its input straight from mapped pinned memory; the host rewrites it.
void kernel_reads_mapped(Gpu& g, Waiter& w) {
  float* in;
  CHECK(cudaHostAlloc(&in, kBytes, cudaHostAllocMapped));
  std::fill(in, in + kFloats, 1.0f);
  scale<<<64, 256, 0, g.stream>>>(in, reinterpret_cast<float*>(g.device), kFloats);
  CHECK(cudaGetLastError());
  w.after_copy();
  w.wait();
  in[0] = 3.0f;  // the next input
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(in));
}

// A kernel that publishes its data through a flag in mapped memory, as the programming guide allows: the data,
// a system-scope fence, then the flag with a release store; the host spins on the flag with acquire loads (up
// to 10 s) and reads the data while the kernel may still be running. Correct with every form.
__global__ void publish(float* data, int n, unsigned* flag) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = 1.0f;
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) atomicExch_system(flag, 1u);
}
void kernel_publishes_through_flag(Gpu& g, Waiter&) {
  float* data;
  unsigned* flag;
  CHECK(cudaHostAlloc(&data, 4096 * sizeof(float), cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&flag, sizeof(unsigned), cudaHostAllocMapped));
  *flag = 0;
  publish<<<1, 256, 0, g.stream>>>(data, 4096, flag);
  CHECK(cudaGetLastError());
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) {  // an acquire load (C++17: no std::atomic_ref)
    if (std::chrono::steady_clock::now() > give_up) {
      std::fprintf(stderr, "the kernel's flag was not set within 10 s\n");
      std::exit(1);
    }
  }
  volatile float seen = data[4095];
  if (seen != 1.0f) {
    std::fprintf(stderr, "the data was not there when the flag was: %f\n", static_cast<double>(seen));
    std::exit(1);
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(flag));
  CHECK(cudaFreeHost(data));
}

// Managed memory (`hazardlab check --managed-memory`): a kernel handed a pointer into a cudaMallocManaged
// allocation may touch all of it until the host knows it ran. On GPUs with concurrentManagedAccess nothing faults:
// the host reads stale data or changes the kernel's input.
// managed-kernel-writes: a kernel writes managed memory; the host reads it.
void managed_kernel_writes(Gpu& g, Waiter& w) {
  float* out;
  CHECK(cudaMallocManaged(&out, kBytes));
  CHECK(cudaMemsetAsync(g.device, 0, kBytes, g.stream));
  scale<<<64, 256, 0, g.stream>>>(reinterpret_cast<const float*>(g.device), out, kFloats);
  CHECK(cudaGetLastError());
  w.after_copy();
  w.wait();
  volatile float seen = out[kFloats / 2];
  (void)seen;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(out));
}

// managed-kernel-reads: a kernel reads its input from managed memory; the host rewrites it.
void managed_kernel_reads(Gpu& g, Waiter& w) {
  float* in;
  CHECK(cudaMallocManaged(&in, kBytes));
  std::fill(in, in + kFloats, 1.0f);
  scale<<<64, 256, 0, g.stream>>>(in, reinterpret_cast<float*>(g.device), kFloats);
  CHECK(cudaGetLastError());
  w.after_copy();
  w.wait();
  in[kFloats - 1] = 3.0f;  // the next input
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(in));
}

// managed-prefetch-not-a-fence: a kernel writes managed memory, the host prefetches it to the CPU and reads it.
// The prefetch is queued behind the kernel and waits for nothing.
void managed_prefetch(Gpu& g, Waiter& w) {
  float* out;
  CHECK(cudaMallocManaged(&out, kBytes));
  CHECK(cudaMemsetAsync(g.device, 0, kBytes, g.stream));
  scale<<<64, 256, 0, g.stream>>>(reinterpret_cast<const float*>(g.device), out, kFloats);
  CHECK(cudaGetLastError());
#if CUDART_VERSION >= 13000
  cudaMemLocation host{};
  host.type = cudaMemLocationTypeHost;
  CHECK(cudaMemPrefetchAsync(out, kBytes, host, 0, g.stream));
#else
  CHECK(cudaMemPrefetchAsync(out, kBytes, cudaCpuDeviceId, g.stream));
#endif
  w.after_copy();
  w.wait();
  volatile float seen = out[0];
  (void)seen;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(out));
}

// managed-not-handed: a kernel writes one managed allocation while the host uses another: correct in every form.
void managed_not_handed(Gpu& g, Waiter& w) {
  float *out, *mine;
  CHECK(cudaMallocManaged(&out, kBytes));
  CHECK(cudaMallocManaged(&mine, kBytes));
  CHECK(cudaMemsetAsync(g.device, 0, kBytes, g.stream));
  scale<<<64, 256, 0, g.stream>>>(reinterpret_cast<const float*>(g.device), out, kFloats);
  CHECK(cudaGetLastError());
  w.after_copy();
  std::fill(mine, mine + kFloats, 4.0f);
  w.wait();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(mine));
  CHECK(cudaFree(out));
}

const std::map<std::string, Pattern>& patterns() {
  static const std::map<std::string, Pattern> all{
      {"h2d-pinned-mutate", h2d_pinned},   {"d2h-pinned-read-early", d2h_pinned},
      {"registered-h2d-mutate", registered}, {"write-combined-memory", write_combined},
      {"pinned-pool-reuse", pinned_pool},  {"staging-ring-reuse", staging_ring},
      {"chunked-readback-wrong-event", chunked}, {"graph-memcpy-by-reference", graph_memcpy},
      {"pitched-copy", pitched},           {"free-while-in-flight", free_in_flight},
      {"relies-on-small-upload-sync", relies_on_small_upload},
      {"kernel-writes-mapped", kernel_writes_mapped}, {"kernel-reads-mapped", kernel_reads_mapped},
      {"kernel-publishes-through-flag", kernel_publishes_through_flag},
      {"managed-kernel-writes", managed_kernel_writes}, {"managed-kernel-reads", managed_kernel_reads},
      {"managed-prefetch-not-a-fence", managed_prefetch}, {"managed-not-handed", managed_not_handed}};
  return all;
}
const std::vector<std::string> kForms{"unsafe",     "stream-synchronize", "event-synchronize", "event-query",
                                      "stream-query", "host-function",    "device-synchronize"};

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& [name, p] : patterns())
      for (const std::string& f : kForms)
        if ((name != "chunked-readback-wrong-event" && name != "relies-on-small-upload-sync") || f == "unsafe" ||
            f == "event-synchronize")
          std::printf("%s %s %s\n", name.c_str(), f.c_str(),
                      f == "unsafe" && name != "kernel-publishes-through-flag" && name != "managed-not-handed"
                          ? "found"
                          : "clean");
    return 0;
  }
  const bool known = argc == 3 && patterns().count(argv[1]) &&
                     std::find(kForms.begin(), kForms.end(), std::string(argv[2])) != kForms.end();
  if (!known) {
    std::fprintf(stderr, "usage: check-patterns PATTERN FORM (check-patterns --list shows them)\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no usable GPU\n");
    return 77;
  }
  Gpu gpu;
  Waiter waiter(argv[2], gpu.stream);
  patterns().at(argv[1])(gpu, waiter);
  CHECK(cudaDeviceSynchronize());
  std::printf("%s %s: ran\n", argv[1], argv[2]);
  return 0;
}
