// Kernels whose footprints are known by construction, for the footprint probe to read back: a chunked pipeline whose
// kernels get the base pointer and an offset (NVIDIA's overlap sample), a kernel that only reads through a plain
// pointer, writes through a struct of pointers and through a table of pointers in device memory, and two kernel
// nodes of a captured CUDA graph. Prints what each launch should touch, in launch order, and where each allocation
// is; the probe prints what each launch touched, in the same order.
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.hpp"

namespace {

constexpr int kStreams = 4, kChunk = 1 << 18;  // floats per chunk

__global__ void chunk_kernel(float* a, int offset) {
  const int i = offset + blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = a[i] * 2.0f + 1.0f;
}
__global__ void read_only(float* in, float* out, int n) {  // `in` is a plain pointer, only read
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += in[i];
  atomicAdd(out, s);
}
struct Pair {
  float* first;
  float* second;
};
__global__ void through_struct(Pair p, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) p.second[i] = p.first[i] + 1.0f;
}
__global__ void through_table(float* const* table, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) table[1][i] = table[0][i];
}
__global__ void fill(float* a, int n, float v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = v;
}

}  // namespace

int main() {
  float* a = nullptr;
  CHECK(cudaMalloc(&a, sizeof(float) * kStreams * kChunk));
  CHECK(cudaMemset(a, 0, sizeof(float) * kStreams * kChunk));
  cudaStream_t streams[kStreams];
  for (cudaStream_t& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int i = 0; i < kStreams; ++i) {
    chunk_kernel<<<kChunk / 256, 256, 0, streams[i]>>>(a, i * kChunk);
    CHECK(cudaGetLastError());
    std::printf("expect chunk_kernel write [+%zu,+%zu) read the same\n", sizeof(float) * i * kChunk,
                sizeof(float) * (i + 1) * kChunk);
  }
  CHECK(cudaDeviceSynchronize());

  float *in = nullptr, *out = nullptr, *second = nullptr;
  CHECK(cudaMalloc(&in, sizeof(float) * 4096));
  CHECK(cudaMalloc(&out, sizeof(float)));
  CHECK(cudaMalloc(&second, sizeof(float) * 4096));
  CHECK(cudaMemset(in, 0, sizeof(float) * 4096));
  read_only<<<1, 256>>>(in, out, 4096);
  CHECK(cudaGetLastError());
  std::printf("expect read_only read in [+0,+16384), out atomic [+0,+4)\n");
  through_struct<<<1, 256>>>(Pair{in, second}, 1024);
  CHECK(cudaGetLastError());
  std::printf("expect through_struct read in [+0,+4096) write second [+0,+4096)\n");
  float** table = nullptr;
  float* host_table[2] = {in, second};
  CHECK(cudaMalloc(&table, sizeof host_table));
  CHECK(cudaMemcpy(table, host_table, sizeof host_table, cudaMemcpyHostToDevice));
  std::printf("allocations a %p in %p out %p second %p table %p\n", static_cast<void*>(a), static_cast<void*>(in),
              static_cast<void*>(out), static_cast<void*>(second), static_cast<void*>(table));
  through_table<<<1, 256>>>(table, 512);
  CHECK(cudaGetLastError());
  std::printf("expect through_table read table [+0,+16) in [+0,+2048) write second [+0,+2048)\n");
  CHECK(cudaDeviceSynchronize());

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CHECK(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal));
  fill<<<8, 256, 0, streams[0]>>>(in, 4096, 1.0f);
  fill<<<8, 256, 0, streams[0]>>>(second, 2048, 2.0f);
  CHECK(cudaStreamEndCapture(streams[0], &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, streams[1]));
  std::printf("expect graph fill write in [+0,+16384) and fill write second [+0,+8192)\n");
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  for (cudaStream_t s : streams) CHECK(cudaStreamDestroy(s));
  for (void* p : {static_cast<void*>(a), static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(second),
                  static_cast<void*>(table)})
    CHECK(cudaFree(p));
  std::printf("done\n");
  return 0;
}
