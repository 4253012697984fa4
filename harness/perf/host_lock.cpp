#include "perf/host_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

namespace hazardlab::perf {

std::string HostLock::path() {
  if (const char* v = std::getenv("HAZARDLAB_HOST_LOCK"); v && *v) return v;
  std::error_code ec;
  std::filesystem::path folder = std::filesystem::temp_directory_path(ec);
  if (ec) folder = "/tmp";
  return (folder / "hazardlab-host.lock").string();
}

HostLock::HostLock(Mode mode, std::chrono::milliseconds wait) {
  const std::string file = path();
  // Readable and writable by every user: runs of different users on one host share it.
  const mode_t previous = umask(0);
  fd_ = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  umask(previous);
  if (fd_ < 0) {
    why_not_ = "cannot open the host lock " + file + ": " + std::strerror(errno);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const int operation = (mode == Mode::Exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
  while (true) {
    if (flock(fd_, operation) == 0) {
      held_ = true;
      break;
    }
    if (errno != EWOULDBLOCK && errno != EINTR) {
      why_not_ = "flock(" + file + "): " + std::strerror(errno);
      break;
    }
    if (std::chrono::steady_clock::now() - start >= wait) {
      why_not_ =
          "another process held the host lock " + file + " for longer than " + std::to_string(wait.count()) + " ms";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  waited_ = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
}

HostLock::~HostLock() {
  if (fd_ >= 0) close(fd_);  // releases the lock
}

}  // namespace hazardlab::perf
