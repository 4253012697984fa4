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
#include "hazardlab/environment.hpp"
#include "hazardlab/settings_table.hpp"

namespace hazardlab::perf {

std::string HostLock::path() {
  if (std::optional<std::string> v = environment_value_given(setting::kHostLock.name)) return *v;
  std::error_code ec;
  std::filesystem::path folder = std::filesystem::temp_directory_path(ec);
  if (ec) folder = "/tmp";
  return (folder / "hazardlab-host.lock").string();
}

namespace {

int open_shared_file(const std::string& file) {
  // Readable and writable by every user: runs of different users on one host share it.
  const mode_t previous = umask(0);
  const int fd = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  umask(previous);
  return fd;
}

// Polls flock until it succeeds or `deadline` passes; "" on success, else why not.
std::string lock_until(int fd, int operation, const std::string& file, std::chrono::steady_clock::time_point deadline,
                       std::chrono::milliseconds wait) {
  while (true) {
    if (flock(fd, operation | LOCK_NB) == 0) return "";
    if (errno != EWOULDBLOCK && errno != EINTR) return "flock(" + file + "): " + std::strerror(errno);
    if (std::chrono::steady_clock::now() >= deadline)
      return "another process held the host lock " + file + " for longer than " + std::to_string(wait.count()) + " ms";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

HostLock::HostLock(Mode mode, std::chrono::milliseconds wait) {
  const std::string file = path();
  const std::string intent = file + ".intent";
  fd_ = open_shared_file(file);
  intent_fd_ = open_shared_file(intent);
  if (fd_ < 0 || intent_fd_ < 0) {
    why_not_ = "cannot open the host lock " + (fd_ < 0 ? file : intent) + ": " + std::strerror(errno);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + wait;
  const int operation = mode == Mode::Exclusive ? LOCK_EX : LOCK_SH;
  why_not_ = lock_until(intent_fd_, operation, intent, deadline, wait);
  if (why_not_.empty()) why_not_ = lock_until(fd_, operation, file, deadline, wait);
  held_ = why_not_.empty();
  // A shared holder lets the next exclusive request line up behind it at once.
  if (mode == Mode::Shared) flock(intent_fd_, LOCK_UN);
  waited_ = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
}

HostLock::~HostLock() {
  // Closing releases the locks.
  if (fd_ >= 0) close(fd_);
  if (intent_fd_ >= 0) close(intent_fd_);
}

}  // namespace hazardlab::perf
