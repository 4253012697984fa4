// Host functions, stream callbacks and the host threads they start or wake, for `hazardlab check`: correct
// programs in the shape of real ones (NVIDIA's simpleCallback and simpleCudaGraphs, a loader thread filling a
// pinned buffer with read(2) and fread) that the checker must call clean and leave behaving exactly as without
// it, and one that races, which it must find.
//   check-host-threads SCENARIO     (check-host-threads --list: every scenario and what the checker must say)
// Each prints what it computed, so that a run under the checker can be compared with a plain one. Exit 77
// without a GPU, 2 on an unknown scenario.
#include <cuda_runtime.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuda_check.hpp"

namespace {

constexpr int kElements = 1 << 16;
constexpr int kWorkloads = 4;

__global__ void add_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

void launch_add_one(int* device, cudaStream_t stream) {
  add_one<<<(kElements + 255) / 256, 256, 0, stream>>>(device, kElements);
  CHECK(cudaGetLastError());
}

// One stream's work: upload, a kernel, download into pinned memory.
struct Workload {
  int id = 0;
  cudaStream_t stream{};
  int* host = nullptr;  // pinned
  int* device = nullptr;
  std::thread worker;
  bool ok = false;
};

void start_workload(Workload& w, int id) {
  w.id = id;
  CHECK(cudaStreamCreate(&w.stream));
  CHECK(cudaHostAlloc(&w.host, kElements * sizeof(int), cudaHostAllocPortable));
  CHECK(cudaMalloc(&w.device, kElements * sizeof(int)));
  for (int i = 0; i < kElements; ++i) w.host[i] = id + i;
  CHECK(cudaMemcpyAsync(w.device, w.host, kElements * sizeof(int), cudaMemcpyHostToDevice, w.stream));
  launch_add_one(w.device, w.stream);
  CHECK(cudaMemcpyAsync(w.host, w.device, kElements * sizeof(int), cudaMemcpyDeviceToHost, w.stream));
}

bool holds_its_result(const Workload& w) {
  for (int i = 0; i < kElements; ++i)
    if (w.host[i] != w.id + i + 1) return false;
  return true;
}

// The postprocess thread: reads the results the download wrote, then frees the pinned buffer.
void postprocess(Workload* w) {
  w->ok = holds_its_result(*w);
  CHECK(cudaFreeHost(w->host));
  w->host = nullptr;
}

// simpleCallback's shape: a stream callback queued behind the download starts a new host thread, which reads
// the results and frees them. The callback runs after the download (stream order), and the thread starts from
// the callback: every access is ordered after the copy.
int callback_starts_thread() {
  std::vector<Workload> work(kWorkloads);
  for (int i = 0; i < kWorkloads; ++i) {
    start_workload(work[i], i);
    CHECK(cudaStreamAddCallback(
        work[i].stream,
        [](cudaStream_t, cudaError_t status, void* data) {
          CHECK(status);
          auto* w = static_cast<Workload*>(data);
          w->worker = std::thread(postprocess, w);
        },
        &work[i], 0));
  }
  // The callbacks have all run (and started their threads) once every stream has drained.
  CHECK(cudaDeviceSynchronize());
  int good = 0;
  for (Workload& w : work) {
    w.worker.join();
    good += w.ok;
    CHECK(cudaFree(w.device));
    CHECK(cudaStreamDestroy(w.stream));
  }
  std::printf("%d of %d workloads correct\n", good, kWorkloads);
  return good == kWorkloads ? 0 : 1;
}

// A host function behind the download wakes a thread that waits on a condition variable: the hand-off the
// program makes is not a CUDA call, and the host function's start orders the thread's read after the copy.
int host_function_wakes_thread() {
  Workload w;
  start_workload(w, 7);
  struct Handoff {
    std::mutex m;
    std::condition_variable cv;
    bool ready = false;
  } handoff;
  bool ok = false;
  std::thread reader([&] {
    std::unique_lock lock(handoff.m);
    if (!handoff.cv.wait_for(lock, std::chrono::seconds(10), [&] { return handoff.ready; })) {
      std::fprintf(stderr, "the host function did not run within 10 s\n");
      std::exit(1);
    }
    ok = holds_its_result(w);
  });
  CHECK(cudaLaunchHostFunc(
      w.stream,
      [](void* data) {
        auto* h = static_cast<Handoff*>(data);
        std::lock_guard lock(h->m);
        h->ready = true;
        h->cv.notify_all();
      },
      &handoff));
  reader.join();
  CHECK(cudaStreamSynchronize(w.stream));
  CHECK(cudaFreeHost(w.host));
  CHECK(cudaFree(w.device));
  CHECK(cudaStreamDestroy(w.stream));
  std::printf("the woken thread read %s\n", ok ? "the result" : "stale data");
  return ok ? 0 : 1;
}

// Many streams, each with host functions that read a pinned buffer and a memset of that buffer queued behind
// them: the memset waits for the function, so there is no race. The driver runs the functions of all the
// streams on its own threads, interleaving one stream's markers with another's: the checker must judge each
// access by the functions running, never by what the thread ran last.
int host_functions_interleaved() {
  constexpr int kStreams = 6, kRounds = 40;
  struct Slot {
    cudaStream_t stream{};
    unsigned char* pinned = nullptr;
    unsigned long sum = 0;
  };
  std::vector<Slot> slots(kStreams);
  for (Slot& s : slots) {
    CHECK(cudaStreamCreate(&s.stream));
    CHECK(cudaMallocHost(&s.pinned, 4096));
    std::memset(s.pinned, 1, 4096);
  }
  for (int round = 0; round < kRounds; ++round)
    for (Slot& s : slots) {
      CHECK(cudaLaunchHostFunc(
          s.stream,
          [](void* data) {
            auto* slot = static_cast<Slot*>(data);
            for (int i = 0; i < 4096; i += 512) slot->sum += slot->pinned[i];
          },
          &s));
      CHECK(cudaMemsetAsync(s.pinned, round % 2 + 1, 4096, s.stream));
    }
  CHECK(cudaDeviceSynchronize());
  unsigned long total = 0;
  for (Slot& s : slots) {
    total += s.sum;
    CHECK(cudaFreeHost(s.pinned));
    CHECK(cudaStreamDestroy(s.stream));
  }
  std::printf("the host functions summed %lu\n", total);
  return 0;
}

// simpleCudaGraphs' shape: a graph built by stream capture holds an upload from pinned memory and a host
// function; the graph and a clone of it are launched three times each. The host function reads a pinned
// result that a download node before it in the graph wrote. Nothing the checker adds may change the graph.
int captured_graph_with_host_function() {
  cudaStream_t stream{};
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int *input = nullptr, *result = nullptr, *device = nullptr;
  CHECK(cudaMallocHost(&input, kElements * sizeof(int)));
  CHECK(cudaMallocHost(&result, sizeof(int)));
  CHECK(cudaMalloc(&device, kElements * sizeof(int)));
  for (int i = 0; i < kElements; ++i) input[i] = 1;
  struct Seen {
    int* result;
    int launches = 0, last = 0;
  } seen{result};
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemcpyAsync(device, input, kElements * sizeof(int), cudaMemcpyHostToDevice, stream));
  launch_add_one(device, stream);
  CHECK(cudaMemcpyAsync(result, device + kElements - 1, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaLaunchHostFunc(
      stream,
      [](void* data) {
        auto* s = static_cast<Seen*>(data);
        s->last = *s->result;
        ++s->launches;
      },
      &seen));
  cudaGraph_t graph{};
  CHECK(cudaStreamEndCapture(stream, &graph));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  std::printf("nodes in the captured graph: %zu\n", nodes);
  cudaGraph_t clone{};
  CHECK(cudaGraphClone(&clone, graph));
  cudaGraphExec_t exec{}, clone_exec{};
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphInstantiate(&clone_exec, clone, 0));
  for (int i = 0; i < 3; ++i) CHECK(cudaGraphLaunch(exec, stream));
  for (int i = 0; i < 3; ++i) CHECK(cudaGraphLaunch(clone_exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("the host function ran %d times and last read %d\n", seen.launches, seen.last);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphExecDestroy(clone_exec));
  CHECK(cudaGraphDestroy(clone));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFreeHost(input));
  CHECK(cudaFreeHost(result));
  CHECK(cudaFree(device));
  CHECK(cudaStreamDestroy(stream));
  return seen.launches == 6 && seen.last == 2 ? 0 : 1;
}

// A loader thread whose first access of a pinned buffer is the kernel's: read(2) from a pipe and fread from a
// file into the buffer's second half, then write(2) out of it, while the main thread's upload from the first
// half is in flight. Correct: the checker must call it clean, and every call must succeed as without it (under
// range keys the kernel obeys the loader's key rights, and fails a call with EFAULT where they are closed).
int loader_thread_reads_into_pinned() {
  constexpr std::size_t kHalf = kElements * sizeof(int) / 2, kPiped = 4096;
  unsigned char* pinned = nullptr;
  void* device = nullptr;
  cudaStream_t stream{};
  CHECK(cudaHostAlloc(reinterpret_cast<void**>(&pinned), 2 * kHalf, cudaHostAllocDefault));
  CHECK(cudaMalloc(&device, 2 * kHalf));
  CHECK(cudaStreamCreate(&stream));
  std::memset(pinned, 7, kHalf);
  CHECK(cudaMemcpyAsync(device, pinned, kHalf, cudaMemcpyHostToDevice, stream));  // owns the first half

  std::vector<unsigned char> piped(kPiped), filed(kHalf - kPiped), echoed(kPiped);
  for (std::size_t i = 0; i < piped.size(); ++i) piped[i] = static_cast<unsigned char>(i * 7);
  for (std::size_t i = 0; i < filed.size(); ++i) filed[i] = static_cast<unsigned char>(i * 13);
  int in[2], out[2];
  FILE* file = std::tmpfile();
  if (file == nullptr || ::pipe(in) != 0 || ::pipe(out) != 0 ||
      ::write(in[1], piped.data(), kPiped) != static_cast<ssize_t>(kPiped) ||
      std::fwrite(filed.data(), 1, filed.size(), file) != filed.size() || std::fflush(file) != 0) {
    std::printf("could not set up the pipes and the file: %s\n", std::strerror(errno));
    return 1;
  }
  std::rewind(file);
  std::string failed;
  std::thread loader([&] {
    unsigned char* second = pinned + kHalf;
    if (::read(in[0], second, kPiped) != static_cast<ssize_t>(kPiped))
      failed = std::string("read(2) into the pinned buffer: ") + std::strerror(errno);
    else if (std::fread(second + kPiped, 1, filed.size(), file) != filed.size())
      failed = "fread into the pinned buffer: " + std::string(std::ferror(file) ? "an error" : "end of file");
    else if (::write(out[1], second, kPiped) != static_cast<ssize_t>(kPiped))
      failed = std::string("write(2) from the pinned buffer: ") + std::strerror(errno);
  });
  loader.join();
  CHECK(cudaStreamSynchronize(stream));
  if (failed.empty() && ::read(out[0], echoed.data(), kPiped) != static_cast<ssize_t>(kPiped))
    failed = "the echo through the second pipe";
  if (failed.empty() && (std::memcmp(pinned + kHalf, piped.data(), kPiped) != 0 ||
                         std::memcmp(pinned + kHalf + kPiped, filed.data(), filed.size()) != 0 || echoed != piped))
    failed = "the bytes read are not the bytes written";
  std::fclose(file);
  for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  CHECK(cudaStreamDestroy(stream));
  if (!failed.empty()) {
    std::printf("the loader thread failed: %s\n", failed.c_str());
    return 1;
  }
  std::printf("the loader thread read %zu bytes into the pinned buffer and wrote %zu out of it\n", kHalf, kPiped);
  return 0;
}

// The same download and a thread that reads it, but the callback that starts the thread is queued on another
// stream, which the download is not ordered with: the read races with the copy, whatever the timing.
int callback_on_another_stream() {
  Workload w;
  start_workload(w, 3);
  cudaStream_t other{};
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  std::thread reader;
  bool ok = false;
  struct Start {
    std::thread* reader;
    Workload* w;
    bool* ok;
  } start{&reader, &w, &ok};
  CHECK(cudaStreamAddCallback(
      other,
      [](cudaStream_t, cudaError_t status, void* data) {
        CHECK(status);
        auto* s = static_cast<Start*>(data);
        *s->reader = std::thread([s] { *s->ok = holds_its_result(*s->w); });
      },
      &start, 0));
  CHECK(cudaStreamSynchronize(other));
  reader.join();
  CHECK(cudaStreamSynchronize(w.stream));
  CHECK(cudaFreeHost(w.host));
  CHECK(cudaFree(w.device));
  CHECK(cudaStreamDestroy(w.stream));
  CHECK(cudaStreamDestroy(other));
  std::printf("the thread read its result before the copy was known to be done\n");
  return 0;
}

struct Scenario {
  std::function<int()> run;
  const char* expected;  // what `hazardlab check` must say: clean, or found and the hazard
};

const std::map<std::string, Scenario>& scenarios() {
  static const std::map<std::string, Scenario> all{
      {"callback-starts-thread", {callback_starts_thread, "clean"}},
      {"host-function-wakes-thread", {host_function_wakes_thread, "clean"}},
      {"host-functions-interleaved", {host_functions_interleaved, "clean"}},
      {"captured-graph-with-host-function", {captured_graph_with_host_function, "clean"}},
      {"loader-thread-reads-into-pinned", {loader_thread_reads_into_pinned, "clean"}},
      {"callback-on-another-stream", {callback_on_another_stream, "found d2h-pinned-read-early"}},
  };
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& [name, s] : scenarios()) std::printf("%s %s\n", name.c_str(), s.expected);
    return 0;
  }
  if (argc != 2 || !scenarios().count(argv[1])) {
    std::fprintf(stderr, "usage: check-host-threads SCENARIO (check-host-threads --list shows them)\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no usable GPU\n");
    return 77;
  }
  return scenarios().at(argv[1]).run();
}
