// One rank of a job that srun starts: a plain CUDA program, no MPI, told its rank (its job script passes it
// SLURM_PROCID), that uploads from pinned memory.
//   check-slurm-ranks correct RANK             every rank synchronizes before it rewrites the source: clean
//   check-slurm-ranks unsafe-on RACING RANK    rank RACING rewrites the source before the upload is known to have
//                                              read it (found, in that rank alone); every other rank as `correct`
// Prints "rank RANK: 10 uploads". Exit 77 without a GPU, 2 on a bad argument.
#include <cstdio>
#include <cstring>
#include <string>

#include "cuda_check.hpp"

int main(int argc, char** argv) {
  const std::string form = argc > 1 ? argv[1] : "";
  if (!(form == "correct" && argc == 3) && !(form == "unsafe-on" && argc == 4)) {
    std::fprintf(stderr, "usage: check-slurm-ranks correct RANK | unsafe-on RACING RANK\n");
    return 2;
  }
  const char* rank = argv[argc - 1];
  const bool races = form == "unsafe-on" && std::strcmp(argv[2], rank) == 0;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("no usable GPU");
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
    if (!races) CHECK(cudaStreamSynchronize(stream));
    pinned[100] = static_cast<unsigned char>(round + 1);  // racing: the copy may still be reading it
    CHECK(cudaStreamSynchronize(stream));
  }
  std::printf("rank %s: 10 uploads\n", rank);
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(pinned));
  return 0;
}
