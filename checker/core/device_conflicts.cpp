#include "checker/core/device_conflicts.hpp"

#include <algorithm>
#include <cstring>

namespace hazardlab::check {

bool conflicting(DeviceAccessKind a, DeviceAccessKind b) {
  using enum DeviceAccessKind;
  if (a == Write || b == Write) return true;
  return (a == MayWrite) != (b == MayWrite);  // a may-write beside a read; two may-writes may both only read
}

void DeviceConflicts::split_at(std::uintptr_t address) {
  auto after = cells_.upper_bound(address);
  if (after == cells_.begin()) return;
  auto cell = std::prev(after);
  if (cell->first == address || cell->second.end <= address) return;
  Cell tail = cell->second;
  cell->second.end = address;
  cells_.emplace_hint(after, address, std::move(tail));
}

void DeviceConflicts::report(const DeviceAccess& earlier, const DeviceAccess& later, std::uintptr_t address,
                             std::vector<DeviceConflict>& found) {
  const std::pair<SiteId, SiteId> sites{earlier.site, later.site};
  if (every_occurrence_) return found.push_back(DeviceConflict{earlier, later, address});
  if (std::find(reported_.begin(), reported_.end(), sites) != reported_.end()) return;
  reported_.push_back(sites);
  found.push_back(DeviceConflict{earlier, later, address});
}

void DeviceConflicts::touch(Cell& cell, std::uintptr_t begin, const DeviceWork& work, const DeviceAccess& access,
                            std::vector<DeviceConflict>& found) {
  // Rule 1 and every edge the engine follows: work the new item is ordered after cannot race with it.
  auto unordered = [&](const DeviceAccess& earlier) {
    return !OrderEngine::clock_knows(work.ordered_after, earlier.stamp);
  };
  for (const DeviceAccess& other : cell.accesses)
    if (conflicting(other.kind, access.kind) && unordered(other)) report(other, access, begin, found);
  // What the new access stands for (device_conflicts.hpp): a write, everything it is ordered after; a read or a
  // may-write, what it is ordered after of its own kind. A read and a may-write race with different things, so
  // neither stands for the other; nothing stands for an access it is not ordered after.
  std::erase_if(cell.accesses, [&](const DeviceAccess& other) {
    return (access.kind == DeviceAccessKind::Write || other.kind == access.kind) && !unordered(other);
  });
  cell.accesses.push_back(access);
}

std::vector<DeviceConflict> DeviceConflicts::enqueued(const DeviceWork& work) {
  std::vector<DeviceConflict> found;
  for (const DeviceRange& range : work.ranges) {
    if (range.begin >= range.end) continue;
    const DeviceAccess access{work.stamp, work.api, work.site, range.kind, work.kind, work.name, work.source};
    split_at(range.begin);
    split_at(range.end);
    std::uintptr_t at = range.begin;
    auto cell = cells_.lower_bound(range.begin);
    while (at < range.end) {
      if (cell == cells_.end() || cell->first > at) {
        // Memory no remembered work touched: the new item is its first access.
        const std::uintptr_t gap_end = cell == cells_.end() ? range.end : std::min(range.end, cell->first);
        cells_.emplace_hint(cell, at, Cell{gap_end, {access}});
        at = gap_end;
        continue;
      }
      touch(cell->second, cell->first, work, access, found);
      at = cell->second.end;
      ++cell;
    }
  }
  return found;
}

void DeviceConflicts::forget_known(const Clock& host_clock) {
  const auto known = [&](const DeviceAccess& a) { return OrderEngine::clock_knows(host_clock, a.stamp); };
  for (auto cell = cells_.begin(); cell != cells_.end();) {
    std::erase_if(cell->second.accesses, known);
    cell = cell->second.accesses.empty() ? cells_.erase(cell) : std::next(cell);
  }
}

void DeviceConflicts::forget(std::uintptr_t begin, std::uintptr_t end) {
  if (begin >= end) return;
  split_at(begin);
  split_at(end);
  cells_.erase(cells_.lower_bound(begin), cells_.lower_bound(end));
}

std::vector<DeviceRange> kernel_ranges(std::span<const KernelArgument> arguments,
                                       std::span<const DeviceAllocation> allocations, std::size_t element) {
  std::vector<DeviceRange> ranges;
  if (allocations.empty()) return ranges;
  // Most words are sizes and scalars: anything outside the span of all allocations is refused at once.
  const std::uintptr_t lowest = allocations.front().base;
  const std::uintptr_t highest = allocations.back().base + allocations.back().bytes;
  for (const KernelArgument& argument : arguments) {
    for (std::size_t at = 0; at + sizeof(std::uintptr_t) <= argument.bytes.size(); at += sizeof(std::uintptr_t)) {
      std::uintptr_t value = 0;
      std::memcpy(&value, argument.bytes.data() + at, sizeof value);
      if (value < lowest || value >= highest) continue;
      // The allocation that holds the value: the last one starting at or before it.
      auto after = std::upper_bound(allocations.begin(), allocations.end(), value,
                                    [](std::uintptr_t v, const DeviceAllocation& a) { return v < a.base; });
      if (after == allocations.begin()) continue;
      const DeviceAllocation& holder = *std::prev(after);
      if (value >= holder.base + holder.bytes) continue;
      const std::uintptr_t end = std::min<std::uintptr_t>(value + element, holder.base + holder.bytes);
      DeviceAccessKind kind = DeviceAccessKind::MayWrite;
      if (argument.access == ArgumentAccess::ReadOnly) kind = DeviceAccessKind::Read;
      if (argument.access == ArgumentAccess::OutputFirst)
        kind = at == 0 ? DeviceAccessKind::Write : DeviceAccessKind::Read;
      ranges.push_back({value, end, kind});
    }
  }
  return ranges;
}

}  // namespace hazardlab::check
