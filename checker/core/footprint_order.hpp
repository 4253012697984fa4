// Device work judged in the order it was enqueued, each kernel once its footprint is known.
//
// A kernel's exact footprint (the bytes it read and wrote, per allocation, recorded by the device as it ran:
// checker/footprints/) is known only after the kernel ran, while the race rules need each item judged against the
// items enqueued before it, in that order: FastTrack's supersession (device_conflicts.hpp) and the pairs said once
// both assume it. So an item that waits for a footprint holds up the items enqueued after it, and a host
// synchronization that lets the remembered work go is itself queued, with what the host knew at that moment:
// forgetting with what the host knows later would drop work that an item enqueued between the two could race with.
//
// Where a footprint cannot be had (the kernel was not patched, its record overflowed or was not read back), the
// rule's ranges judge it (the element each pointer argument points to, kernel_ranges), and the access says so.
// CUDA-free. The Checker does not use it yet: no recorder runs beside the checker's CUPTI subscriber (checker/README.md,
// "Exact footprints"), so it judges with DeviceConflicts directly; the tests hand in tickets and footprints.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <vector>

#include "checker/core/device_conflicts.hpp"

namespace hazardlab::check {

// The footprint a kernel's launch waits for; 0: none (its ranges are final).
using FootprintTicket = std::uint64_t;

class FootprintOrder {
 public:
  explicit FootprintOrder(DeviceConflicts& conflicts) : conflicts_(conflicts) {}

  // Work enqueued. With a ticket, `work.ranges` are the rule's ranges, judged only if the footprint never comes.
  // The races found now: none while earlier work still waits.
  std::vector<DeviceConflict> enqueued(const DeviceWork& work, FootprintTicket awaiting = 0);
  // The host now knows what `host_clock` says: remembered work it knows is let go once everything enqueued
  // before this moment has been judged.
  void host_knows(const Clock& host_clock);
  // The memory no longer holds what earlier work touched (DeviceConflicts::forget), in the same order.
  void forget(std::uintptr_t begin, std::uintptr_t end);
  // A kernel's footprint arrived (its exact ranges), or will never come (nullopt: the rule's ranges judge it).
  // The races found among the items this let through.
  std::vector<DeviceConflict> footprint(FootprintTicket ticket, std::optional<std::vector<DeviceRange>> exact);
  // Every footprint still awaited, given up: the rule's ranges judge those kernels (at the end of a process whose
  // records could not be read back).
  std::vector<DeviceConflict> give_up_waiting();

  [[nodiscard]] std::size_t waiting() const { return queue_.size(); }
  // The footprints awaited for launches `host_clock` knows have run: those the device has finished recording.
  [[nodiscard]] std::vector<FootprintTicket> awaited_known(const Clock& host_clock) const;

 private:
  // An item held back, owning what DeviceWork only views.
  struct Held {
    WorkStamp stamp;
    Clock ordered_after;
    std::string_view api, name;
    SiteId site = 0;
    DeviceWorkKind kind = DeviceWorkKind::Kernel;
    std::vector<DeviceRange> ranges;
    FootprintTicket ticket = 0;  // 0 once its ranges are final
    RangeSource source = RangeSource::Named;
    // Not an item but a moment kept in its place: a host synchronization, or memory renewed.
    enum class Moment { None, HostKnows, MemoryRenewed } moment = Moment::None;
    Clock host_clock;                       // HostKnows: what the host knew then
    std::uintptr_t begin = 0, end = 0;      // MemoryRenewed
  };
  std::vector<DeviceConflict> drain();

  DeviceConflicts& conflicts_;
  std::deque<Held> queue_;
};

}  // namespace hazardlab::check
