// Kernels judged by what their PTX touches (`hazardlab check --ptx-footprints`). Each scenario is a shape where the
// rule (what each pointer argument points to, the first element, written unless `const`) is wrong one way or the
// other; the correct ones must be clean and the racing ones found.
//   check-ptx-footprints SCENARIO     (check-ptx-footprints --list: every scenario and what the checker must say)
// Exit 77 without a GPU, 2 on an unknown scenario, 1 when a result is wrong where it must be right.
#include <cuda_runtime.h>

#include <cstdio>
#include <map>
#include <string>

#include "cuda_check.hpp"

namespace {

constexpr int kStreams = 4, kBlock = 256, kChunk = 1 << 18, kElements = kStreams * kChunk;

// The shape of NVIDIA's stream overlap sample: each stream's kernel gets the base pointer and its chunk's offset.
__global__ void add_one_at(float* a, int offset) {
  const int i = offset + threadIdx.x + blockIdx.x * blockDim.x;
  a[i] = a[i] + 1.0f;
}
// Reads through a plain pointer (no `const`): the rule takes it for a write.
__global__ void doubled(float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
__global__ void fill(float* out, int n, float value) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = value;
}
// Two plain pointers: by the rule two may-writes, which never race with each other.
__global__ void sum(float* in, int n, float* result) {
  float local = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) local += in[i];
  atomicAdd(result, local);
}
struct Halves {
  float* written;
  const float* read;
};
__global__ void copy_through(Halves h, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) h.written[i] = h.read[i] + 1.0f;
}

struct Device {
  float* data = nullptr;
  float* other = nullptr;
  float* result = nullptr;
  float* host = nullptr;  // pinned
  cudaStream_t streams[kStreams] = {};
  explicit Device(unsigned stream_flags) {
    CHECK(cudaMalloc(&data, kElements * sizeof(float)));
    CHECK(cudaMalloc(&other, kElements * sizeof(float)));
    CHECK(cudaMalloc(&result, sizeof(float)));
    CHECK(cudaMallocHost(&host, kElements * sizeof(float)));
    CHECK(cudaMemset(data, 0, kElements * sizeof(float)));
    CHECK(cudaMemset(other, 0, kElements * sizeof(float)));
    CHECK(cudaMemset(result, 0, sizeof(float)));
    for (cudaStream_t& s : streams) CHECK(cudaStreamCreateWithFlags(&s, stream_flags));
  }
  ~Device() {
    for (cudaStream_t s : streams) CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(data));
    CHECK(cudaFree(other));
    CHECK(cudaFree(result));
  }
  float sum_result() {
    float out = 0;
    CHECK(cudaMemcpy(&out, result, sizeof(float), cudaMemcpyDeviceToHost));
    return out;
  }
};

// Correct: each stream uploads its chunk, adds one to it and downloads it, all on that stream (blocking streams,
// as the sample creates them).
int chunked_offset() {
  Device d(cudaStreamDefault);
  for (int i = 0; i < kElements; ++i) d.host[i] = static_cast<float>(i % 1000);
  for (int s = 0; s < kStreams; ++s) {
    const int offset = s * kChunk;
    CHECK(cudaMemcpyAsync(d.data + offset, d.host + offset, kChunk * sizeof(float), cudaMemcpyHostToDevice,
                          d.streams[s]));
    add_one_at<<<kChunk / kBlock, kBlock, 0, d.streams[s]>>>(d.data, offset);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(d.host + offset, d.data + offset, kChunk * sizeof(float), cudaMemcpyDeviceToHost,
                          d.streams[s]));
  }
  CHECK(cudaDeviceSynchronize());
  int wrong = 0;
  for (int i = 0; i < kElements; ++i) wrong += d.host[i] != static_cast<float>(i % 1000) + 1.0f;
  std::printf("chunked-offset: %d wrong of %d\n", wrong, kElements);
  return wrong == 0 ? 0 : 1;
}

// Correct: a kernel reads `data` through a plain pointer while another stream copies `data` out: two reads.
int read_beside_copy_out() {
  Device d(cudaStreamNonBlocking);
  fill<<<64, kBlock, 0, d.streams[0]>>>(d.data, kElements, 3.0f);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(d.streams[0]));
  doubled<<<kElements / kBlock, kBlock, 0, d.streams[0]>>>(d.data, d.other, kElements);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(d.host, d.data, kElements * sizeof(float), cudaMemcpyDeviceToHost, d.streams[1]));
  CHECK(cudaDeviceSynchronize());
  std::printf("read-beside-copy-out: host[0] %.0f\n", d.host[0]);
  return d.host[0] == 3.0f ? 0 : 1;
}

// A kernel on one stream fills `data` while a kernel on another sums it (CuPy's `a += 1` on one stream and `a.sum()`
// on another): a race, unless an event orders the sum after the fill.
int write_then_read(bool event) {
  Device d(cudaStreamNonBlocking);
  cudaEvent_t filled;
  CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
  fill<<<64, kBlock, 0, d.streams[0]>>>(d.data, kElements, 1.0f);
  CHECK(cudaGetLastError());
  if (event) {
    CHECK(cudaEventRecord(filled, d.streams[0]));
    CHECK(cudaStreamWaitEvent(d.streams[1], filled, 0));
  }
  sum<<<64, kBlock, 0, d.streams[1]>>>(d.data, kElements, d.result);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventDestroy(filled));
  std::printf("write-then-read: sum %.0f of %d\n", d.sum_result(), kElements);
  return 0;
}

// Two kernels on two streams write `other` through a struct of pointers: a race, unless an event orders them.
int two_writers_through_a_struct(bool event) {
  Device d(cudaStreamNonBlocking);
  cudaEvent_t first_done;
  CHECK(cudaEventCreateWithFlags(&first_done, cudaEventDisableTiming));
  copy_through<<<kElements / kBlock, kBlock, 0, d.streams[0]>>>(Halves{d.other, d.data}, kElements);
  CHECK(cudaGetLastError());
  if (event) {
    CHECK(cudaEventRecord(first_done, d.streams[0]));
    CHECK(cudaStreamWaitEvent(d.streams[1], first_done, 0));
  }
  copy_through<<<kElements / kBlock, kBlock, 0, d.streams[1]>>>(Halves{d.other, d.data}, kElements);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventDestroy(first_done));
  return 0;
}

struct Scenario {
  int (*run)();
  const char* expected;
};
const std::map<std::string, Scenario>& scenarios() {
  static const std::map<std::string, Scenario> all{
      {"chunked-offset", {chunked_offset, "clean: each kernel touches its own chunk, on its own stream"}},
      {"read-beside-copy-out", {read_beside_copy_out, "clean: the kernel only reads what the copy reads"}},
      {"write-then-read", {[] { return write_then_read(false); }, "found: the fill and the sum race"}},
      {"write-then-read-event", {[] { return write_then_read(true); }, "clean: an event orders the sum after"}},
      {"struct-writers", {[] { return two_writers_through_a_struct(false); }, "found: the two writes race"}},
      {"struct-writers-event", {[] { return two_writers_through_a_struct(true); }, "clean: an event orders them"}},
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
    std::fprintf(stderr, "usage: check-ptx-footprints SCENARIO (check-ptx-footprints --list shows them)\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no usable GPU\n");
    return 77;
  }
  return scenarios().at(argv[1]).run();
}
