// A case's client of its GPU's warm worker: the worker's name, reached (or its supervisor started), the request
// handed over with the client's own stdout and stderr, and the case's exit status back.
#include "warm_worker.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>
#include <vector>

#include "hazardlab/environment.hpp"
#include "hazardlab/fnv1a.hpp"
#include "warm_protocol.hpp"
#include "warm_socket.hpp"
#include "warm_supervisor.hpp"

namespace hazardlab::warm {
namespace {

// One worker per ctest run, GPU, binary and settings: anything that could change what a case does
// is part of the name, so a run with other settings never reaches this one's worker.
std::string worker_name(const CaseRequest& r, pid_t owner) {
  std::vector<std::string> parts;
  for (const std::string& entry : environment_entries()) {
    if (entry.starts_with("HAZARDLAB_") || entry.starts_with("CUDA_")) parts.push_back(entry);
  }
  std::sort(parts.begin(), parts.end());
  char exe[4096] = {};
  parts.emplace_back(exe, std::max<ssize_t>(0, ::readlink("/proc/self/exe", exe, sizeof exe - 1)));
  parts.push_back(r.device);
  std::uint64_t hash = kFnv1aOffsetBasis;
  for (const std::string& p : parts) hash = fnv1a(p + '\n', hash);
  char name[96];
  std::snprintf(name, sizeof name, "hazardlab-cases/%u/%d/%016llx", ::getuid(), owner,
                static_cast<unsigned long long>(hash));
  return abstract_name(name);
}

int connect_or_start(const std::string& name, const CaseRunner& runner) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int fd = seqpacket_socket();
    if (fd < 0) return -1;
    if (connect_to(fd, name)) return fd;
    ::close(fd);
    if (attempt == 0) {
      const int listener = seqpacket_socket();
      if (listener >= 0 && bind_and_listen(listener, name)) start_supervisor(listener, runner);
      if (listener >= 0) ::close(listener);
      continue;  // bound here or by another client: either way it now accepts
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

}  // namespace

std::optional<int> run_in_worker(const CaseRequest& request, const CaseRunner& runner, std::string& why_not) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  // A supervisor that reached its idle limit just as this client connected closes without taking
  // the request: then the case has not started, and a new supervisor is tried.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int fd = connect_or_start(worker_name(request, ::getppid()), runner);
    if (fd < 0) {
      why_not = std::string("no warm worker could be reached: ") + std::strerror(errno);
      return std::nullopt;
    }
    std::optional<Message> taken;
    if (send_message(fd, encode(request), {STDOUT_FILENO, STDERR_FILENO})) taken = receive_message(fd);
    if (!taken) {
      ::close(fd);
      continue;
    }
    const std::optional<Message> answer = taken->bytes == kTaken ? receive_message(fd) : taken;
    ::close(fd);
    if (!answer) {
      std::cerr << "hazardlab-cases: the warm worker's supervisor went away during the case\n";
      return 1;
    }
    return std::atoi(answer->bytes.c_str());
  }
  why_not = "the warm worker did not take the request";
  return std::nullopt;
}

}  // namespace hazardlab::warm
