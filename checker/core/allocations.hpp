// Every allocation the program made that the checker looks up, of every kind, in one registry: pinned or
// registered host memory (whose kind names a finding, and which a kernel reaches at its host address) and
// device-visible memory (cuMemAlloc, a stream-ordered pool's block, managed memory, a virtual memory map), which
// launches look their arguments up in. Allocations change seldom and launches look them up often: readers share
// the lock, which is taken inside the Checker's and never around it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>
#include <span>
#include <utility>
#include <vector>

#include "checker/core/device_conflicts.hpp"
#include "checker/core/finding.hpp"

namespace hazardlab::check {

struct PinnedRange {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
  PinnedKind kind = PinnedKind::HostAlloc;
};

struct ManagedRange {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
};

class Allocations {
 public:
  void pinned(std::uintptr_t base, std::size_t bytes, PinnedKind kind);
  // The pinned allocation at `base`, now gone (nothing: none the checker saw).
  std::optional<PinnedRange> unpinned(std::uintptr_t base);
  [[nodiscard]] std::optional<PinnedKind> pinned_kind(std::uintptr_t address) const;
  // The kind of the pinned allocation that starts at or below `address`, whether or not it reaches it (a copy's
  // pinned end names its memory by it).
  [[nodiscard]] std::optional<PinnedKind> pinned_kind_below(std::uintptr_t address) const;

  // Managed memory (cuMemAllocManaged): device-visible too (device_visible is told apart), and reachable by the host
  // at the same address, so that a kernel handed a pointer into it holds the whole allocation (`--managed-memory`).
  void managed(std::uintptr_t base, std::size_t bytes);
  // The managed allocation that holds `address`, whole.
  [[nodiscard]] std::optional<ManagedRange> managed_at(std::uintptr_t address) const;

  // Memory a kernel may be handed a pointer into (pinned memory is too: with unified addressing a kernel reaches
  // it at its host address).
  void device_visible(std::uintptr_t base, std::size_t bytes);
  // The device-visible allocation at `base` is gone; its size (0: not one the checker saw allocated).
  std::size_t device_gone(std::uintptr_t base);
  // What a kernel's arguments point to (kernel_ranges), looked up under the shared lock.
  [[nodiscard]] std::vector<DeviceRange> kernel_ranges(std::span<const KernelArgument> arguments) const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::uintptr_t, std::pair<std::size_t, PinnedKind>> pinned_;  // base -> bytes, kind
  std::vector<DeviceAllocation> device_;  // by base, disjoint
  std::map<std::uintptr_t, std::size_t> managed_;  // base -> bytes, each also among device_
};

}  // namespace hazardlab::check
