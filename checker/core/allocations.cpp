#include "checker/core/allocations.hpp"

#include <algorithm>
#include <iterator>
#include <mutex>

namespace hazardlab::check {

void Allocations::pinned(std::uintptr_t base, std::size_t bytes, PinnedKind kind) {
  std::unique_lock lock(mutex_);
  pinned_[base] = {bytes, kind};
}

std::optional<PinnedRange> Allocations::unpinned(std::uintptr_t base) {
  std::unique_lock lock(mutex_);
  const auto it = pinned_.find(base);
  if (it == pinned_.end()) return std::nullopt;
  const PinnedRange gone{base, it->second.first, it->second.second};
  pinned_.erase(it);
  return gone;
}

std::optional<PinnedKind> Allocations::pinned_kind(std::uintptr_t address) const {
  std::shared_lock lock(mutex_);
  auto it = pinned_.upper_bound(address);
  if (it == pinned_.begin()) return std::nullopt;
  --it;
  if (address < it->first + it->second.first) return it->second.second;
  return std::nullopt;
}

std::optional<PinnedKind> Allocations::pinned_kind_below(std::uintptr_t address) const {
  std::shared_lock lock(mutex_);
  auto it = pinned_.upper_bound(address);
  if (it == pinned_.begin()) return std::nullopt;
  return std::prev(it)->second.second;
}

void Allocations::device_visible(std::uintptr_t base, std::size_t bytes) {
  if (bytes == 0) return;
  std::unique_lock lock(mutex_);
  auto at = std::lower_bound(device_.begin(), device_.end(), base,
                             [](const DeviceAllocation& d, std::uintptr_t b) { return d.base < b; });
  if (at != device_.end() && at->base == base) {
    at->bytes = bytes;  // an address the driver handed out again, which the checker did not see freed
    managed_.erase(base);  // whatever it was: managed() marks it managed again after this
    return;
  }
  device_.insert(at, DeviceAllocation{base, bytes});
}

void Allocations::managed(std::uintptr_t base, std::size_t bytes) {
  if (bytes == 0) return;
  device_visible(base, bytes);
  std::unique_lock lock(mutex_);
  managed_[base] = bytes;
}

std::optional<ManagedRange> Allocations::managed_at(std::uintptr_t address) const {
  std::shared_lock lock(mutex_);
  auto it = managed_.upper_bound(address);
  if (it == managed_.begin()) return std::nullopt;
  --it;
  if (address < it->first + it->second) return ManagedRange{it->first, it->second};
  return std::nullopt;
}

std::size_t Allocations::device_gone(std::uintptr_t base) {
  std::unique_lock lock(mutex_);
  managed_.erase(base);
  auto at = std::lower_bound(device_.begin(), device_.end(), base,
                             [](const DeviceAllocation& d, std::uintptr_t b) { return d.base < b; });
  if (at == device_.end() || at->base != base) return 0;
  const std::size_t bytes = at->bytes;
  device_.erase(at);
  return bytes;
}

std::vector<DeviceRange> Allocations::kernel_ranges(std::span<const KernelArgument> arguments) const {
  std::shared_lock lock(mutex_);
  return check::kernel_ranges(arguments, device_);
}

}  // namespace hazardlab::check
