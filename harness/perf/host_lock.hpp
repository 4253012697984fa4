#pragma once
// Bandwidth and overlap are measured alone on the host: copies to another GPU share the CPU's
// memory and PCIe root with the copies being timed. Every hazardlab process that uses a GPU holds
// a host-wide lock shared; a measurement holds it exclusively, so it waits for the cases running
// on the other GPUs (of this run or of any other) and they wait for it. The lock is an flock on a
// file in the system's temporary folder, released by the kernel if its holder dies.
//
// flock gives a waiting exclusive request no priority: cases that follow each other on another GPU
// could keep it waiting forever. So a second file, "<lock>.intent", comes first: an exclusive request
// holds it exclusively until it is released, a shared request takes it shared only on the way in. Once
// a measurement waits, the next case on any GPU waits behind it.
#include <chrono>
#include <string>

namespace hazardlab::perf {

class HostLock {
 public:
  enum class Mode { Shared, Exclusive };
  // Waits up to `wait` for the lock; held() says whether it was taken, else why_not() says why.
  HostLock(Mode mode, std::chrono::milliseconds wait);
  ~HostLock();
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;

  bool held() const noexcept { return held_; }
  const std::string& why_not() const noexcept { return why_not_; }
  std::chrono::milliseconds waited() const noexcept { return waited_; }
  static std::string path();  // HAZARDLAB_HOST_LOCK, else <temporary folder>/hazardlab-host.lock

 private:
  int fd_ = -1;
  int intent_fd_ = -1;
  bool held_ = false;
  std::string why_not_;
  std::chrono::milliseconds waited_{0};
};

}  // namespace hazardlab::perf
