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
//
// Which GPUs share one lock is HAZARDLAB_TIMED_TURNS (TimedTurns): the whole host (one lock, the default), the
// GPUs of one NUMA node, or each GPU alone; each such timing group is a lock file of its own, "<lock>.<group>"
// (the whole host's is "<lock>"). A case holds its GPU's group shared, a measurement its GPU's group alone, and
// the several-GPU figures (every GPU at once, the peer matrix) hold every group alone.
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/device.hpp"

namespace hazardlab::perf {

enum class TimedTurns { Host, NumaNode, Gpu };
TimedTurns timed_turns_from_environment();  // HAZARDLAB_TIMED_TURNS; throws SettingsError
std::string_view setting_word(TimedTurns turns);

// The timing group of `device`: "" for the whole host, "numa<N>" (a GPU without a NUMA node: the whole host's),
// or "gpu-<PCI bus id>".
std::string timing_group(const DeviceFingerprint& device, TimedTurns turns);
// Every group of `devices`, each once, in the order they are taken.
std::vector<std::string> timing_groups(const std::vector<DeviceFingerprint>& devices, TimedTurns turns);

class HostLock {
 public:
  enum class Mode { Shared, Exclusive };
  // Waits up to `wait` for the lock of every group of `groups` (taken in their order, sorted, so that two holders
  // of several never wait on each other crosswise); held() says whether all were taken, else why_not() says why.
  HostLock(Mode mode, std::chrono::milliseconds wait, std::vector<std::string> groups = {""});
  ~HostLock();
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;

  bool held() const noexcept { return held_; }
  const std::string& why_not() const noexcept { return why_not_; }
  std::chrono::milliseconds waited() const noexcept { return waited_; }
  // HAZARDLAB_HOST_LOCK, else <temporary folder>/hazardlab-host.lock; "<that>.<group>" for a group's.
  static std::string path(const std::string& group = "");
  // The lock files held (or asked for), comma-separated: what a measurement record names.
  const std::string& files() const noexcept { return files_; }

 private:
  std::vector<int> fds_;  // each group's lock and intent files
  bool held_ = false;
  std::string why_not_;
  std::string files_;
  std::chrono::milliseconds waited_{0};
};

}  // namespace hazardlab::perf
