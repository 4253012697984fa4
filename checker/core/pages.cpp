#include "checker/core/pages.hpp"

#include <iterator>

#include <unistd.h>

#include <stdexcept>

namespace hazardlab::check {

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}
std::uintptr_t page_floor(std::uintptr_t address) { return address & ~(page_size() - 1); }
std::uintptr_t page_ceil(std::uintptr_t address) { return page_floor(address + page_size() - 1); }

void PageHolds::split_at(std::uintptr_t address) {
  auto it = segments_.upper_bound(address);
  if (it == segments_.begin()) return;
  --it;
  if (it->first < address && address < it->second.end) {
    Segment tail = it->second;
    it->second.end = address;
    segments_.emplace(address, tail);
  }
}

const std::vector<PageChange>& PageHolds::update(std::uintptr_t begin, std::uintptr_t end, Hold hold, int delta) {
  begin = page_floor(begin);
  end = page_ceil(end);
  std::vector<PageChange>& changes = changes_;
  changes.clear();
  if (begin >= end) return changes;
  split_at(begin);
  split_at(end);
  auto note = [&](std::uintptr_t b, std::uintptr_t e, PageAccess before, PageAccess after) {
    if (before == after) return;
    if (!changes.empty() && changes.back().end == b && changes.back().access == after)
      changes.back().end = e;
    else
      changes.push_back(PageChange{b, e, after});
  };
  auto apply = [&](Counts& counts) {
    std::uint32_t& n = hold == Hold::NoWrites ? counts.no_writes : counts.no_access;
    if (delta < 0 && n == 0) throw std::logic_error("a page hold released more often than it was taken");
    n = static_cast<std::uint32_t>(static_cast<int>(n) + delta);
  };
  std::uintptr_t at = begin;
  auto it = segments_.lower_bound(begin);
  while (at < end) {
    if (it == segments_.end() || it->first > at) {
      // A gap: pages no copy holds yet.
      const std::uintptr_t gap_end = it == segments_.end() ? end : std::min(end, it->first);
      Counts counts;
      apply(counts);
      note(at, gap_end, PageAccess::ReadWrite, counts.access());
      it = segments_.emplace_hint(it, at, Segment{gap_end, counts});
      ++it;
      at = gap_end;
      continue;
    }
    const PageAccess before = it->second.counts.access();
    apply(it->second.counts);
    note(it->first, it->second.end, before, it->second.counts.access());
    at = it->second.end;
    const Counts& c = it->second.counts;
    it = c.no_writes == 0 && c.no_access == 0 ? segments_.erase(it) : std::next(it);
  }
  return changes;
}

const std::vector<PageChange>& PageHolds::add(std::uintptr_t begin, std::uintptr_t end, Hold hold) {
  return update(begin, end, hold, +1);
}
const std::vector<PageChange>& PageHolds::remove(std::uintptr_t begin, std::uintptr_t end, Hold hold) {
  return update(begin, end, hold, -1);
}

PageAccess PageHolds::strictest() const {
  PageAccess strictest = PageAccess::ReadWrite;
  for (const auto& [begin, segment] : segments_) {
    const PageAccess a = segment.counts.access();
    if (a == PageAccess::None) return a;
    if (a == PageAccess::ReadOnly) strictest = a;
  }
  return strictest;
}

std::vector<PageChange> PageHolds::move_all_into(PageHolds& other) {
  std::vector<PageChange> changed;
  auto take = [&](const std::vector<PageChange>& changes) { changed.insert(changed.end(), changes.begin(), changes.end()); };
  for (const auto& [begin, segment] : segments_) {
    for (std::uint32_t i = 0; i < segment.counts.no_writes; ++i) take(other.add(begin, segment.end, Hold::NoWrites));
    for (std::uint32_t i = 0; i < segment.counts.no_access; ++i) take(other.add(begin, segment.end, Hold::NoAccess));
  }
  segments_.clear();
  return changed;
}

bool PageHolds::any_held(std::uintptr_t begin, std::uintptr_t end) const {
  // Segments hold something (pages held by nothing are absent): one that overlaps [begin, end) is enough.
  auto it = segments_.upper_bound(begin);
  if (it != segments_.begin() && std::prev(it)->second.end > begin) return true;
  return it != segments_.end() && it->first < end;
}

PageAccess PageHolds::access_at(std::uintptr_t address) const {
  auto it = segments_.upper_bound(address);
  if (it == segments_.begin()) return PageAccess::ReadWrite;
  --it;
  return address < it->second.end ? it->second.counts.access() : PageAccess::ReadWrite;
}

}  // namespace hazardlab::check
