// CUDA graphs under `hazardlab check`: their kernel and memset nodes are device work with the graph's own edges.
// Each scenario builds a graph (node by node, or captured from two streams), launches it and prints what it
// computed; the racing ones must be found, their fixed twins clean.
//   check-graphs SCENARIO     (check-graphs --list: every scenario and what the checker must say)
// Exit 77 without a GPU, 2 on an unknown scenario.
#include <cuda_runtime.h>

#include <cstdio>
#include <map>
#include <string>

#include "cuda_check.hpp"

namespace {

constexpr int kElements = 1 << 20;

__global__ void fill(float* out, int n, float value) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = value;
}
__global__ void sum(const float* in, int n, float* result) {
  float local = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) local += in[i];
  atomicAdd(result, local);
}

struct Buffers {
  float* data = nullptr;
  float* result = nullptr;
  cudaStream_t first = nullptr, second = nullptr;
  Buffers() {
    CHECK(cudaMalloc(&data, kElements * sizeof(float)));
    CHECK(cudaMalloc(&result, sizeof(float)));
    CHECK(cudaMemset(data, 0, kElements * sizeof(float)));
    CHECK(cudaMemset(result, 0, sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
  }
  int finish() {
    CHECK(cudaDeviceSynchronize());
    float host = 0;
    CHECK(cudaMemcpy(&host, result, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("sum %.0f\n", host);
    CHECK(cudaFree(data));
    CHECK(cudaFree(result));
    CHECK(cudaStreamDestroy(first));
    CHECK(cudaStreamDestroy(second));
    return 0;
  }
};

// Built node by node: a memset node writing the data and a kernel node summing it, with or without the edge.
cudaGraphExec_t memset_then_sum(Buffers& b, bool edge) {
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaMemsetParams memset{};
  memset.dst = b.data;
  memset.value = 0x3f800000;  // 1.0f
  memset.elementSize = 4;
  memset.width = kElements;
  memset.height = 1;
  cudaGraphNode_t set, add;
  CHECK(cudaGraphAddMemsetNode(&set, graph, nullptr, 0, &memset));
  int n = kElements;
  void* args[] = {&b.data, &n, &b.result};
  cudaKernelNodeParams kernel{};
  kernel.func = reinterpret_cast<void*>(sum);
  kernel.gridDim = dim3(64);
  kernel.blockDim = dim3(256);
  kernel.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&add, graph, edge ? &set : nullptr, edge ? 1 : 0, &kernel));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph));
  return exec;
}

int nodes(bool edge) {
  Buffers b;
  cudaGraphExec_t exec = memset_then_sum(b, edge);
  CHECK(cudaGraphLaunch(exec, b.first));
  CHECK(cudaGraphLaunch(exec, b.second));  // after the first launch: CUDA runs one executable's launches in turn
  CHECK(cudaGraphExecDestroy(exec));
  return b.finish();
}

// A graph on one stream writes the data that a kernel on another stream reads, with or without an event.
int graph_and_stream(bool event) {
  Buffers b;
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(b.first, cudaStreamCaptureModeThreadLocal));
  fill<<<64, 256, 0, b.first>>>(b.data, kElements, 2.0f);
  CHECK(cudaStreamEndCapture(b.first, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, b.first));
  cudaEvent_t done;
  CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  if (event) {
    CHECK(cudaEventRecord(done, b.first));
    CHECK(cudaStreamWaitEvent(b.second, done, 0));
  }
  sum<<<64, 256, 0, b.second>>>(b.data, kElements, b.result);
  CHECK(cudaEventDestroy(done));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return b.finish();
}

// Captured from two streams, as torch.cuda.graph captures a side stream: the second stream fills the data and the
// first sums it, joined before the sum or only at the end of the capture.
int captured_fork(bool joined_before_sum) {
  Buffers b;
  cudaEvent_t fork, filled;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(b.first, cudaStreamCaptureModeThreadLocal));
  CHECK(cudaEventRecord(fork, b.first));
  CHECK(cudaStreamWaitEvent(b.second, fork, 0));
  fill<<<64, 256, 0, b.second>>>(b.data, kElements, 3.0f);
  CHECK(cudaEventRecord(filled, b.second));
  if (joined_before_sum) CHECK(cudaStreamWaitEvent(b.first, filled, 0));
  sum<<<64, 256, 0, b.first>>>(b.data, kElements, b.result);
  if (!joined_before_sum) CHECK(cudaStreamWaitEvent(b.first, filled, 0));  // a capture must join its streams
  CHECK(cudaStreamEndCapture(b.first, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, b.first));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(filled));
  return b.finish();
}

struct Scenario {
  int (*run)();
  const char* expected;
};
const std::map<std::string, Scenario>& scenarios() {
  static const std::map<std::string, Scenario> all{
      {"nodes-unordered", {[] { return nodes(false); }, "found: the memset node and the kernel node race"}},
      {"nodes-ordered", {[] { return nodes(true); }, "clean: an edge orders them, and the launches run in turn"}},
      {"graph-and-stream", {[] { return graph_and_stream(false); }, "found: the graph's node and the kernel race"}},
      {"graph-and-stream-event", {[] { return graph_and_stream(true); }, "clean: an event orders them"}},
      {"captured-fork", {[] { return captured_fork(false); }, "found: the side stream's node and the sum race"}},
      {"captured-fork-joined", {[] { return captured_fork(true); }, "clean: the capture's join orders them"}},
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
    std::fprintf(stderr, "usage: check-graphs SCENARIO (check-graphs --list shows them)\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no usable GPU\n");
    return 77;
  }
  return scenarios().at(argv[1]).run();
}
