#include "perf/host_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "hazardlab/environment.hpp"
#include "hazardlab/setting_source.hpp"
#include "hazardlab/settings_table.hpp"
#include "perf/perf.hpp"

namespace hazardlab::perf {

TimedTurns timed_turns_from_environment() {
  const std::string word = SettingSource::from_environment().choice(setting::kTimedTurns, "host");
  return word == "numa-node" ? TimedTurns::NumaNode : word == "gpu" ? TimedTurns::Gpu : TimedTurns::Host;
}

std::string_view setting_word(TimedTurns turns) {
  switch (turns) {
    case TimedTurns::Host:
      return "host";
    case TimedTurns::NumaNode:
      return "numa-node";
    case TimedTurns::Gpu:
      return "gpu";
  }
  return "host";
}

std::string timing_group(const DeviceFingerprint& device, TimedTurns turns) {
  if (turns == TimedTurns::NumaNode) {
    const int node = numa_node_of(device.pci_bus_id);
    return node < 0 ? "" : "numa" + std::to_string(node);
  }
  if (turns == TimedTurns::Gpu) {
    std::string bus = device.pci_bus_id.empty() ? "index" + std::to_string(device.index) : device.pci_bus_id;
    std::replace(bus.begin(), bus.end(), ':', '-');
    return "gpu-" + bus;
  }
  return "";
}

std::vector<std::string> timing_groups(const std::vector<DeviceFingerprint>& devices, TimedTurns turns) {
  std::vector<std::string> groups;
  for (const DeviceFingerprint& d : devices) groups.push_back(timing_group(d, turns));
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  return groups;
}

std::string HostLock::path(const std::string& group) {
  std::string base;
  if (std::optional<std::string> v = environment_value_given(setting::kHostLock.name)) {
    base = *v;
  } else {
    std::error_code ec;
    std::filesystem::path folder = std::filesystem::temp_directory_path(ec);
    if (ec) folder = "/tmp";
    base = (folder / "hazardlab-host.lock").string();
  }
  return group.empty() ? base : base + "." + group;
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

HostLock::HostLock(Mode mode, std::chrono::milliseconds wait, std::vector<std::string> groups) {
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + wait;
  const int operation = mode == Mode::Exclusive ? LOCK_EX : LOCK_SH;
  for (const std::string& group : groups) {
    const std::string file = path(group);
    const std::string intent = file + ".intent";
    files_ += (files_.empty() ? "" : ",") + file;
    if (!why_not_.empty()) continue;  // named, not taken
    const int fd = open_shared_file(file);
    const int intent_fd = open_shared_file(intent);
    if (fd >= 0) fds_.push_back(fd);
    if (intent_fd >= 0) fds_.push_back(intent_fd);
    if (fd < 0 || intent_fd < 0) {
      why_not_ = "cannot open the host lock " + (fd < 0 ? file : intent) + ": " + std::strerror(errno);
      continue;
    }
    why_not_ = lock_until(intent_fd, operation, intent, deadline, wait);
    if (why_not_.empty()) why_not_ = lock_until(fd, operation, file, deadline, wait);
    // A shared holder lets the next exclusive request line up behind it at once.
    if (mode == Mode::Shared) flock(intent_fd, LOCK_UN);
  }
  held_ = why_not_.empty();
  waited_ = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
}

HostLock::~HostLock() {
  // Closing releases the locks.
  for (const int fd : fds_) close(fd);
}

}  // namespace hazardlab::perf
