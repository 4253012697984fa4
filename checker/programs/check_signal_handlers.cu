// A program's own SIGSEGV handler under `hazardlab check`, as crash reporters, language runtimes and MPI
// libraries install one: the checker's stays in front, the program's lives behind it and gets every fault that
// is not the checker's, and the run is judged as without the handler.
//   check-signal-handlers handler-at-start     a handler installed before any copy; correct copies: clean
//   check-signal-handlers handler-while-held   a handler installed while a copy is held, then the pinned source
//                                              rewritten before the copy is known to have read it: found
//   check-signal-handlers own-crash            correct copies, then the program's own fault: its handler runs,
//                                              sets the default action back and raises the signal again, so the
//                                              process ends by SIGSEGV, as it does without the checker
// Exit 77 without a GPU.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "cuda_check.hpp"

namespace {

constexpr size_t kBytes = 1 << 20;

void crash_report(int sig) {
  const char text[] = "crash handler: caught the program's own fault\n";
  (void)!::write(STDOUT_FILENO, text, sizeof text - 1);
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_crash_handler() {
  struct sigaction action {};
  action.sa_handler = &crash_report;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSEGV, &action, nullptr) != 0 || sigaction(SIGBUS, &action, nullptr) != 0) {
    std::perror("sigaction");
    std::exit(1);
  }
}

__global__ void sleep_for(unsigned long long nanoseconds) {
  const unsigned long long start = clock64();
  while (clock64() - start < nanoseconds) {
  }
}

// Uploads and synchronizes before the host touches the source again: nothing to find.
unsigned correct_copies(unsigned char* pinned, unsigned char* device, cudaStream_t stream) {
  unsigned sum = 0;
  for (int round = 0; round < 20; ++round) {
    std::memset(pinned, round, kBytes);
    CHECK(cudaMemcpyAsync(device, pinned, kBytes, cudaMemcpyHostToDevice, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpyAsync(pinned, device, kBytes, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    sum += pinned[kBytes - 1];
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario != "handler-at-start" && scenario != "handler-while-held" && scenario != "own-crash") {
    std::fprintf(stderr, "usage: check-signal-handlers handler-at-start|handler-while-held|own-crash (got '%s')\n",
                 scenario.c_str());
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("no usable GPU");
    return 77;
  }
  CHECK(cudaFree(nullptr));  // CUDA started: the checker's handler is in front from here
  if (scenario != "handler-while-held") install_crash_handler();
  unsigned char *pinned = nullptr, *device = nullptr;
  CHECK(cudaMallocHost(&pinned, kBytes));
  CHECK(cudaMalloc(&device, kBytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  if (scenario == "handler-while-held") {
    sleep_for<<<1, 1, 0, stream>>>(2000000);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(device, pinned, kBytes, cudaMemcpyHostToDevice, stream));
    install_crash_handler();
    pinned[12] = 7;  // the race: the copy may not have read the source yet
    CHECK(cudaStreamSynchronize(stream));
  } else {
    std::printf("checksum %u\n", correct_copies(pinned, device, stream));
  }
  std::fflush(stdout);
  if (scenario == "own-crash") *static_cast<volatile int*>(nullptr) = 1;  // the program's own bug
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(pinned));
  return 0;
}
