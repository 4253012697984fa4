#include "checker/core/device_conflicts.hpp"

#include <algorithm>
#include <cstring>

namespace hazardlab::check {

namespace {

bool overlap(const DeviceRange& a, const DeviceRange& b) { return a.begin < b.end && b.begin < a.end; }
bool writes(const DeviceRange& r) { return r.kind == DeviceAccessKind::Write; }

}  // namespace

std::vector<DeviceConflict> DeviceConflicts::enqueued(const DeviceWork& work) {
  std::vector<DeviceConflict> found;
  for (const Item& earlier : items_) {
    // Rule 1 and every edge the engine follows: work the new item is ordered after cannot race with it.
    if (OrderEngine::clock_knows(work.ordered_after, earlier.stamp)) continue;
    for (const DeviceRange& range : work.ranges) {
      if (!overlap(earlier.range, range) || (!writes(earlier.range) && !writes(range))) continue;
      const std::pair<SiteId, SiteId> sites{earlier.site, work.site};
      if (std::find(reported_.begin(), reported_.end(), sites) != reported_.end()) continue;
      reported_.push_back(sites);
      found.push_back(DeviceConflict{earlier.stamp, work.stamp, earlier.api, work.api, earlier.site, work.site,
                                     earlier.range.kind, range.kind, std::max(earlier.range.begin, range.begin)});
    }
  }
  for (const DeviceRange& range : work.ranges) items_.push_back(Item{work.stamp, work.api, work.site, range});
  return found;
}

void DeviceConflicts::forget_known(const OrderEngine& order) {
  std::erase_if(items_, [&](const Item& item) { return order.host_knows(item.stamp); });
}

std::vector<DeviceRange> kernel_ranges(std::span<const KernelArgument> arguments,
                                       std::span<const DeviceAllocation> allocations, std::size_t element) {
  std::vector<DeviceRange> ranges;
  for (const KernelArgument& argument : arguments) {
    for (std::size_t at = 0; at + sizeof(std::uintptr_t) <= argument.bytes.size(); at += sizeof(std::uintptr_t)) {
      std::uintptr_t value = 0;
      std::memcpy(&value, argument.bytes.data() + at, sizeof value);
      // The allocation that holds the value: the last one starting at or before it.
      auto after = std::upper_bound(allocations.begin(), allocations.end(), value,
                                    [](std::uintptr_t v, const DeviceAllocation& a) { return v < a.base; });
      if (after == allocations.begin()) continue;
      const DeviceAllocation& holder = *std::prev(after);
      if (value >= holder.base + holder.bytes) continue;
      const std::uintptr_t end = std::min<std::uintptr_t>(value + element, holder.base + holder.bytes);
      ranges.push_back({value, end, argument.read_only ? DeviceAccessKind::Read : DeviceAccessKind::Write});
    }
  }
  return ranges;
}

}  // namespace hazardlab::check
