// Which pages the checker holds protected, and how: a copy that still owns host bytes forbids writes to
// them (the source of a host-to-device copy) or every access (the destination of a device-to-host copy).
// Pages are counted per hold, so copies that share a page, overlap or sit side by side release it only
// when the last of them is released. Plain data, no system calls: the caller applies the changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hazardlab::check {

enum class PageAccess { ReadWrite, ReadOnly, None };
enum class Hold {
  NoWrites,  // the source of a host-to-device copy: the host may read it, not write it
  NoAccess,  // the destination of a device-to-host copy: the host may neither read nor write it
};

struct PageChange {
  std::uintptr_t begin = 0, end = 0;  // page aligned, end exclusive
  PageAccess access = PageAccess::ReadWrite;
  friend bool operator==(const PageChange&, const PageChange&) = default;
};

std::size_t page_size();
std::uintptr_t page_floor(std::uintptr_t address);
std::uintptr_t page_ceil(std::uintptr_t address);

class PageHolds {
 public:
  // Hold [begin, end) (any bytes: widened to whole pages). Returns the pages whose access changed, in a buffer
  // the holds keep and reuse (valid until their next add or remove), so that a copy's hold and release
  // allocate no list of changes.
  const std::vector<PageChange>& add(std::uintptr_t begin, std::uintptr_t end, Hold hold);
  const std::vector<PageChange>& remove(std::uintptr_t begin, std::uintptr_t end, Hold hold);
  [[nodiscard]] PageAccess access_at(std::uintptr_t address) const;
  [[nodiscard]] bool any_held(std::uintptr_t begin, std::uintptr_t end) const;  // any byte of [begin, end)
  [[nodiscard]] bool empty() const { return segments_.empty(); }
  // The strictest access of any held page (ReadWrite when nothing is held).
  [[nodiscard]] PageAccess strictest() const;
  // Every hold moves into `other`, page for page; returns the pages whose access changed there.
  std::vector<PageChange> move_all_into(PageHolds& other);

 private:
  struct Counts {
    std::uint32_t no_writes = 0, no_access = 0;
    [[nodiscard]] PageAccess access() const {
      return no_access > 0 ? PageAccess::None : no_writes > 0 ? PageAccess::ReadOnly : PageAccess::ReadWrite;
    }
    [[nodiscard]] bool none() const { return no_writes == 0 && no_access == 0; }
  };
  struct Segment {
    std::uintptr_t begin, end;
    Counts counts;
  };
  using Segments = std::vector<Segment>;
  const std::vector<PageChange>& update(std::uintptr_t begin, std::uintptr_t end, Hold hold, int delta);
  void split_at(std::uintptr_t address);
  // The first segment that begins after `address`.
  [[nodiscard]] Segments::const_iterator after(std::uintptr_t address) const;
  // Disjoint, in address order; pages held by nothing are absent. A sorted vector, not a tree: a program holds
  // few segments at a time (about one per copy in flight), and the copy and the synchronization that change
  // them then touch one or two cache lines and allocate nothing, where a tree's nodes are each a cache miss
  // in the cold caches the driver leaves between the checker's calls (copy-path-benchmark --evict).
  Segments segments_;
  std::vector<PageChange> changes_;  // what the last add or remove changed
};

}  // namespace hazardlab::check
