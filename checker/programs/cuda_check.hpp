// The checker's GPU programs stand for anyone's CUDA program, so they use no hazardlab library for this:
// every CUDA call checked, naming the call, file and line, and the program ends with status 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s failed at %s:%d: %s\n", call, file, line, cudaGetErrorString(err));
  std::exit(1);
}
#define CHECK(call) check_cuda((call), #call, __FILE__, __LINE__)
