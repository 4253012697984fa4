// A program that starts MPI in its own process (no mpirun: Open MPI's singleton), then CUDA, as mpi4py and the
// frameworks that import it do. Listing OpenCL platforms inside MPI_Init runs the injection entry before the
// program's first cuInit (checker/inject/injection.cpp). MPI's library also installs its own SIGSEGV handler
// there, which must live behind the checker's.
//   check-mpi-in-process correct   uploads synchronized before the source is rewritten: clean
//   check-mpi-in-process unsafe    the source rewritten before the upload is known to have read it: found
// Exit 77 without a GPU.
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "cuda_check.hpp"

int main(int argc, char** argv) {
  const std::string form = argc > 1 ? argv[1] : "";
  if (form != "correct" && form != "unsafe") {
    std::fprintf(stderr, "usage: check-mpi-in-process correct|unsafe (got '%s')\n", form.c_str());
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("no usable GPU");
    MPI_Finalize();
    return 77;
  }
  constexpr size_t kBytes = 1 << 20;
  unsigned char *pinned = nullptr, *device = nullptr;
  CHECK(cudaMallocHost(&pinned, kBytes));
  CHECK(cudaMalloc(&device, kBytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int round = 0; round < 10; ++round) {
    std::memset(pinned, round, kBytes);
    CHECK(cudaMemcpyAsync(device, pinned, kBytes, cudaMemcpyHostToDevice, stream));
    if (form == "correct") CHECK(cudaStreamSynchronize(stream));
    pinned[100] = static_cast<unsigned char>(round + 1);  // unsafe: the copy may still be reading it
    CHECK(cudaStreamSynchronize(stream));
  }
  std::printf("rank %d: 10 uploads\n", rank);
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(pinned));
  MPI_Finalize();
  return 0;
}
