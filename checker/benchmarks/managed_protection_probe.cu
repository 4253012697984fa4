// Can the checker's fault path watch managed memory? On a GPU with concurrentManagedAccess the host may touch a
// cudaMallocManaged buffer while a kernel runs, and reads stale data if nothing orders the two. The checker would
// protect the buffer's pages while a kernel that may touch them is in flight, as it protects a copy's pinned pages.
// This probe measures whether that works without changing what the program computes:
//   - mprotect(PROT_NONE) on a managed range while a kernel writes it: does the call succeed, does a host read
//     fault (and resume once the handler opens the pages), and did every value the kernel wrote land;
//   - PROT_READ while a kernel reads data the host wrote: does the kernel read the right values;
//   - a prefetch to the CPU (cudaMemPrefetchAsync) of protected pages: does it work;
//   - pkey_mprotect on a managed range, where the CPU has protection keys.
// Prints one line per question; exit 0 when it could ask them all, 1 on a CUDA error, 77 without a GPU.
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "cuda_check.hpp"

namespace {

constexpr size_t kBytes = 1 << 20;
volatile sig_atomic_t faults = 0;
void* region = nullptr;

void on_fault(int, siginfo_t* info, void*) {
  faults = faults + 1;
  (void)info;
  mprotect(region, kBytes, PROT_READ | PROT_WRITE);  // open, so that the access resumes
}

// Sleeps (at most 2 s, by the GPU's global timer), then writes `value` into every int.
__global__ void late_writer(int* data, int n, int value, unsigned long long delay_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); while (now - start < delay_ns && now - start < 2000000000ull);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) data[i] = value;
}
__global__ void reader(const int* data, int n, int* wrong, int want) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (data[i] != want) atomicAdd(wrong, 1);
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no usable GPU\n");
    return 77;
  }
  int concurrent = 0;
  CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
  std::printf("concurrentManagedAccess %d\n", concurrent);
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, nullptr);
  const int n = static_cast<int>(kBytes / sizeof(int));
  int* data = nullptr;
  int* wrong = nullptr;
  CHECK(cudaMallocManaged(&data, kBytes));
  CHECK(cudaMallocManaged(&wrong, sizeof(int)));
  region = data;
  std::memset(data, 0, kBytes);
  *wrong = 0;

  // 1. A kernel writes while the pages are PROT_NONE; the host reads one value (faults, then reads).
  late_writer<<<64, 256>>>(data, n, 7, 200000000ull);
  CHECK(cudaGetLastError());
  const int rc = mprotect(data, kBytes, PROT_NONE);
  const int err = errno;
  const int early = data[n / 2];  // a read before the kernel wrote: faults if the protection holds
  CHECK(cudaDeviceSynchronize());
  long bad = 0;
  for (int i = 0; i < n; ++i) bad += data[i] != 7;
  std::printf("mprotect-none-during-kernel rc %d errno %d faults %d early_read %d values_not_written %ld\n", rc,
              rc ? err : 0, static_cast<int>(faults), early, bad);

  // 2. The host wrote 9; PROT_READ while a kernel reads them.
  for (int i = 0; i < n; ++i) data[i] = 9;
  const int rc2 = mprotect(data, kBytes, PROT_READ);
  reader<<<64, 256>>>(data, n, wrong, 9);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("mprotect-read-during-kernel-read rc %d kernel_saw_wrong %d\n", rc2, *wrong);
  mprotect(data, kBytes, PROT_READ | PROT_WRITE);

  // 3. The kernel writes 11 while the pages are PROT_NONE, then a prefetch to the CPU.
  faults = 0;
  late_writer<<<64, 256>>>(data, n, 11, 1000000ull);
  CHECK(cudaGetLastError());
  const int rc3 = mprotect(data, kBytes, PROT_NONE);
  cudaMemLocation cpu{};
  cpu.type = cudaMemLocationTypeHost;
  const cudaError_t prefetch = cudaMemPrefetchAsync(data, kBytes, cpu, 0, nullptr);
  const cudaError_t sync = cudaDeviceSynchronize();
  const int faults_before_read = faults;
  bad = 0;
  for (int i = 0; i < n; ++i) bad += data[i] != 11;
  std::printf("prefetch-to-cpu-of-protected rc %d prefetch %s sync %s faults_before_host_read %d values_not_written %ld\n",
              rc3, cudaGetErrorName(prefetch), cudaGetErrorName(sync), faults_before_read, bad);
  mprotect(data, kBytes, PROT_READ | PROT_WRITE);

  // 4. Protection keys, where the CPU has them.
  const int key = pkey_alloc(0, 0);
  if (key < 0) {
    std::printf("pkey not-available errno %d\n", errno);
  } else {
    const int rc4 = pkey_mprotect(data, kBytes, PROT_READ | PROT_WRITE, key);
    pkey_set(key, PKEY_DISABLE_ACCESS);
    late_writer<<<64, 256>>>(data, n, 13, 1000000ull);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    pkey_set(key, 0);
    bad = 0;
    for (int i = 0; i < n; ++i) bad += data[i] != 13;
    std::printf("pkey-mprotect rc %d values_not_written_with_key_denied %ld\n", rc4, bad);
    pkey_mprotect(data, kBytes, PROT_READ | PROT_WRITE, 0);
    pkey_free(key);
  }
  CHECK(cudaFree(data));
  CHECK(cudaFree(wrong));
  return 0;
}
