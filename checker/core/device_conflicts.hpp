// The device's half of a race: two items of device work (copies, memsets, kernels, stream-ordered frees) that
// touch the same device memory, at least one of them writing, with nothing ordering one after the other under
// the documented rules. "Ordering" is the order engine's happens-before (order.hpp), the same as the conformance
// model's: streams, events, the legacy stream's implicit synchronization, host synchronizations, host functions.
// Whether the race went wrong this time does not matter: the two items could run in either order.
//
// A copy or memset touches exactly the device bytes it names. A kernel's extent is not known: it is taken to
// touch the element each of its pointer arguments points to (kernel_ranges below). That finds the races the
// stream lessons and PyTorch's missing wait_stream/record_stream show (the producer and the consumer are handed
// the same pointer), and raises no false alarm in a chunked pipeline, where each stream's kernels are handed a
// pointer to their own chunk of one allocation; a kernel that reaches past its pointer into another stream's
// chunk is not seen. CUDA-free: the injected library supplies the stamps, clocks and pointer values.
//
// Memory is kept as shadow intervals, as ThreadSanitizer's FastTrack keeps words: for each interval, the accesses
// no later access stands for. A write stands for every access it is ordered after, and a read or a may-write for
// those of its own kind it is ordered after: a later item unordered with the earlier access is unordered with the
// one that stands for it (enqueued later, it cannot be ordered before it) and conflicts with it too. An access
// nothing is ordered after stays, so two unordered writes are both kept and a third stream's read ordered after
// one of them still races with the other. On one stream each access stands for the one before, so the cost of an
// item is the intervals it touches and the streams that touched them, never the history of the program.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/core/finding.hpp"
#include "checker/core/order.hpp"

namespace hazardlab::check {

struct DeviceRange {
  std::uintptr_t begin = 0, end = 0;  // device addresses, end exclusive
  DeviceAccessKind kind = DeviceAccessKind::Read;
};

// An item of device work at its call: its place in its stream, what it is ordered after (its stream's frontier
// once it was enqueued), where it was issued, and what it touches.
// Views of the caller's clock and ranges, for the length of the call: an item per launch copies neither.
struct DeviceWork {
  WorkStamp stamp;
  const Clock& ordered_after;
  std::string_view api;  // the driver call (a name that outlives the checker: a literal or CUPTI's own)
  SiteId site = 0;
  std::span<const DeviceRange> ranges;
  DeviceWorkKind kind = DeviceWorkKind::Kernel;
  std::string_view name = {};  // a kernel's name (one that outlives the checker too)
  RangeSource source = RangeSource::Named;
};

// One side of a race, as remembered.
struct DeviceAccess {
  WorkStamp stamp;
  std::string_view api;
  SiteId site = 0;
  DeviceAccessKind kind = DeviceAccessKind::Read;
  DeviceWorkKind work = DeviceWorkKind::Kernel;
  std::string_view name = {};
  RangeSource source = RangeSource::Named;
};

// Two items that race, the earlier one enqueued first.
struct DeviceConflict {
  DeviceAccess earlier, later;
  std::uintptr_t address = 0;  // the first device byte both touch
};

// Whether two accesses of one byte race when nothing orders them: a write with anything, a may-write with a read.
bool conflicting(DeviceAccessKind a, DeviceAccessKind b);

class DeviceConflicts {
 public:
  // Work enqueued: the earlier work it races with (each pair of call sites once), and it is remembered.
  std::vector<DeviceConflict> enqueued(const DeviceWork& work);
  // The host has synchronized with some work: every item enqueued from now on is ordered after what the host
  // knows, so that work can race with nothing later and is forgotten.
  void forget_known(const OrderEngine& order) { forget_known(order.host_clock()); }
  // The same, with what the host knew at a given moment (footprint_order.hpp keeps such moments).
  void forget_known(const Clock& host_clock);
  // The memory no longer holds what earlier work touched: a synchronous free (it waits for the device), or a
  // block a stream-ordered pool handed out again (the pool orders its new owner after the free that returned
  // it; a use the free raced with was found at the free).
  void forget(std::uintptr_t begin, std::uintptr_t end);
  // Off (the default): each pair of call sites is reported once; on (`--every-occurrence`): every race.
  void set_every_occurrence(bool on) { every_occurrence_ = on; }
  // Intervals that still remember an access.
  [[nodiscard]] std::size_t remembered() const { return cells_.size(); }

 private:
  struct Cell {
    std::uintptr_t end = 0;
    // The accesses no later one stands for, in the order they were enqueued: at most one of each kind per stream.
    std::vector<DeviceAccess> accesses;
  };
  using Cells = std::map<std::uintptr_t, Cell>;
  void split_at(std::uintptr_t address);
  void touch(Cell& cell, std::uintptr_t begin, const DeviceWork& work, const DeviceAccess& access,
             std::vector<DeviceConflict>& found);
  void report(const DeviceAccess& earlier, const DeviceAccess& later, std::uintptr_t address,
              std::vector<DeviceConflict>& found);

  Cells cells_;  // by first byte; disjoint
  std::vector<std::pair<SiteId, SiteId>> reported_;  // pairs of call sites said once
  bool every_occurrence_ = false;
};

// A tracked allocation of device-visible memory (cuMemAlloc, a stream-ordered pool's block, managed memory, mapped
// pinned memory, a virtual memory map), sorted by base for the lookup.
struct DeviceAllocation {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
};

// What a kernel does through an argument, as its signature says (kernel_signature.hpp).
enum class ArgumentAccess {
  MayWrite,     // a `T*`, a struct holding pointers, any argument of a kernel without a C++ symbol
  ReadOnly,     // a `const T*`
  OutputFirst,  // the pointer array of PyTorch's elementwise kernels: the first is the output, the rest inputs
};

// A kernel argument that may hold pointers: the bytes the driver's parameter layout gives for it, and what the
// kernel's signature says it does through it.
struct KernelArgument {
  std::span<const std::byte> bytes;
  ArgumentAccess access = ArgumentAccess::MayWrite;
};

// What a kernel touches: for each pointer-sized, pointer-aligned word of its arguments that points into a tracked
// allocation, the element it points to (`element` bytes): read through a read-only argument, may-write through
// any other; of an OutputFirst argument, the first word written and the others read.
// Words that point nowhere tracked (sizes, scalars, host pointers) are no accesses.
std::vector<DeviceRange> kernel_ranges(std::span<const KernelArgument> arguments,
                                       std::span<const DeviceAllocation> allocations, std::size_t element = 1);

}  // namespace hazardlab::check
