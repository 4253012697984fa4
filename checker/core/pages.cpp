#include "checker/core/pages.hpp"

#include <algorithm>
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

PageHolds::Segments::const_iterator PageHolds::after(std::uintptr_t address) const {
  return std::upper_bound(segments_.begin(), segments_.end(), address,
                          [](std::uintptr_t a, const Segment& s) { return a < s.begin; });
}

void PageHolds::split_at(std::uintptr_t address) {
  const auto next = after(address);
  if (next == segments_.begin()) return;
  const std::size_t i = static_cast<std::size_t>(next - segments_.begin()) - 1;
  Segment& s = segments_[i];
  if (s.begin < address && address < s.end) {
    const Segment tail{address, s.end, s.counts};
    s.end = address;
    segments_.insert(segments_.begin() + static_cast<std::ptrdiff_t>(i) + 1, tail);
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
  // The segments from `first` on are walked by index (a gap's new segment moves those after it); segments
  // left holding nothing are removed together at the end.
  const auto first_at = [&] {
    return static_cast<std::size_t>(std::lower_bound(segments_.begin(), segments_.end(), begin,
                                                     [](const Segment& s, std::uintptr_t a) { return s.begin < a; }) -
                                    segments_.begin());
  };
  const std::size_t first = first_at();
  std::size_t i = first;
  bool emptied = false;
  std::uintptr_t at = begin;
  while (at < end) {
    if (i == segments_.size() || segments_[i].begin > at) {
      // A gap: pages no copy holds yet.
      const std::uintptr_t gap_end = i == segments_.size() ? end : std::min(end, segments_[i].begin);
      Counts counts;
      apply(counts);
      note(at, gap_end, PageAccess::ReadWrite, counts.access());
      segments_.insert(segments_.begin() + static_cast<std::ptrdiff_t>(i), Segment{at, gap_end, counts});
      ++i;
      at = gap_end;
      continue;
    }
    Segment& s = segments_[i];
    const PageAccess before = s.counts.access();
    apply(s.counts);
    note(s.begin, s.end, before, s.counts.access());
    emptied = emptied || s.counts.none();
    at = s.end;
    ++i;
  }
  if (emptied) {
    const auto from = segments_.begin() + static_cast<std::ptrdiff_t>(first);
    const auto to = segments_.begin() + static_cast<std::ptrdiff_t>(i);
    segments_.erase(std::remove_if(from, to, [](const Segment& s) { return s.counts.none(); }), to);
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
  for (const Segment& segment : segments_) {
    const PageAccess a = segment.counts.access();
    if (a == PageAccess::None) return a;
    if (a == PageAccess::ReadOnly) strictest = a;
  }
  return strictest;
}

std::vector<PageChange> PageHolds::move_all_into(PageHolds& other) {
  std::vector<PageChange> changed;
  auto take = [&](const std::vector<PageChange>& changes) { changed.insert(changed.end(), changes.begin(), changes.end()); };
  for (const Segment& segment : segments_) {
    for (std::uint32_t i = 0; i < segment.counts.no_writes; ++i) take(other.add(segment.begin, segment.end, Hold::NoWrites));
    for (std::uint32_t i = 0; i < segment.counts.no_access; ++i) take(other.add(segment.begin, segment.end, Hold::NoAccess));
  }
  segments_.clear();
  return changed;
}

bool PageHolds::any_held(std::uintptr_t begin, std::uintptr_t end) const {
  // Segments hold something (pages held by nothing are absent): one that overlaps [begin, end) is enough.
  const auto next = after(begin);
  if (next != segments_.begin() && std::prev(next)->end > begin) return true;
  return next != segments_.end() && next->begin < end;
}

PageAccess PageHolds::access_at(std::uintptr_t address) const {
  const auto next = after(address);
  if (next == segments_.begin()) return PageAccess::ReadWrite;
  const Segment& s = *std::prev(next);
  return address < s.end ? s.counts.access() : PageAccess::ReadWrite;
}

}  // namespace hazardlab::check
