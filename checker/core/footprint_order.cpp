#include "checker/core/footprint_order.hpp"

#include <iterator>
#include <utility>

namespace hazardlab::check {

std::vector<DeviceConflict> FootprintOrder::enqueued(const DeviceWork& work, FootprintTicket awaiting) {
  if (queue_.empty() && awaiting == 0) return conflicts_.enqueued(work);
  queue_.push_back(Held{work.stamp, work.ordered_after, work.api, work.name, work.site, work.kind,
                        std::vector<DeviceRange>(work.ranges.begin(), work.ranges.end()), awaiting, work.source,
                        Held::Moment::None, {}, 0, 0});
  return drain();
}

void FootprintOrder::host_knows(const Clock& host_clock) {
  if (queue_.empty()) return conflicts_.forget_known(host_clock);
  Held moment;
  moment.moment = Held::Moment::HostKnows;
  moment.host_clock = host_clock;
  queue_.push_back(std::move(moment));
}

void FootprintOrder::forget(std::uintptr_t begin, std::uintptr_t end) {
  if (queue_.empty()) return conflicts_.forget(begin, end);
  Held moment;
  moment.moment = Held::Moment::MemoryRenewed;
  moment.begin = begin;
  moment.end = end;
  queue_.push_back(std::move(moment));
}

std::vector<DeviceConflict> FootprintOrder::footprint(FootprintTicket ticket,
                                                      std::optional<std::vector<DeviceRange>> exact) {
  for (Held& held : queue_) {
    if (held.ticket != ticket || ticket == 0) continue;
    held.ticket = 0;
    if (exact) {
      held.ranges = std::move(*exact);
      held.source = RangeSource::Recorded;
    } else {
      held.source = RangeSource::PointedElement;
    }
    break;
  }
  return drain();
}

std::vector<FootprintTicket> FootprintOrder::awaited_known(const Clock& host_clock) const {
  std::vector<FootprintTicket> known;
  for (const Held& held : queue_)
    if (held.ticket != 0 && OrderEngine::clock_knows(host_clock, held.stamp)) known.push_back(held.ticket);
  return known;
}

std::vector<DeviceConflict> FootprintOrder::give_up_waiting() {
  for (Held& held : queue_)
    if (held.ticket != 0) {
      held.ticket = 0;
      held.source = RangeSource::PointedElement;
    }
  return drain();
}

std::vector<DeviceConflict> FootprintOrder::drain() {
  std::vector<DeviceConflict> found;
  while (!queue_.empty() && queue_.front().ticket == 0) {
    Held held = std::move(queue_.front());
    queue_.pop_front();
    if (held.moment == Held::Moment::HostKnows) {
      conflicts_.forget_known(held.host_clock);
      continue;
    }
    if (held.moment == Held::Moment::MemoryRenewed) {
      conflicts_.forget(held.begin, held.end);
      continue;
    }
    const DeviceWork work{held.stamp, held.ordered_after, held.api, held.site, held.ranges, held.kind, held.name,
                          held.source};
    std::vector<DeviceConflict> now = conflicts_.enqueued(work);
    found.insert(found.end(), std::make_move_iterator(now.begin()), std::make_move_iterator(now.end()));
  }
  return found;
}

}  // namespace hazardlab::check
