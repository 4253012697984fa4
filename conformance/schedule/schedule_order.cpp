#include "conformance/schedule/schedule_order.hpp"

namespace hazardlab::conformance {

bool ActionSet::merge(const ActionSet& other) {
  bool grew = false;
  for (std::size_t i = 0; i < words_.size(); ++i) {
    const std::uint64_t merged = words_[i] | other.words_[i];
    grew = grew || merged != words_[i];
    words_[i] = merged;
  }
  return grew;
}

ScheduleOrder::ScheduleOrder(const HappensBefore& hb) {
  const std::size_t n = hb.actions().size();
  before_.assign(n, ActionSet(n));
  for (ActionId b = 0; b < n; ++b)
    for (ActionId a = 0; a < b; ++a)
      if (hb.ordered(a, b)) before_[b].insert(a);

  ActionId last_host = kNoAction;  // the host's most recent action before the command
  for (const CommandActions& command : hb.commands()) {
    ActionSet done(n);
    if (last_host != kNoAction) {
      done = before_[last_host];
      done.insert(last_host);
    }
    ActionSet held(n);
    for (ActionId gate : command.closed_gates)
      for (ActionId a = 0; a < n; ++a)
        if (a == gate || hb.ordered(gate, a)) held.insert(a);
    // Everything done here finished before anything held here started.
    for (ActionId a = 0; a < n; ++a)
      if (held.contains(a)) before_[a].merge(done);
    done_.push_back(done);
    held_.push_back(std::move(held));
    for (ActionId a : {command.call, command.ret})
      if (a != kNoAction) last_host = a;
  }
  // The host point after the last command: what is done there finished before what is still held.
  if (last_host != kNoAction) {
    ActionSet done = before_[last_host];
    done.insert(last_host);
    for (ActionId gate : hb.closed_at_end())
      for (ActionId a = 0; a < n; ++a)
        if (a == gate || hb.ordered(gate, a)) before_[a].merge(done);
  }
  // Transitive closure (Warshall): the schedule's edges need not follow creation order.
  for (ActionId k = 0; k < n; ++k)
    for (ActionId b = 0; b < n; ++b)
      if (before_[b].contains(k)) before_[b].merge(before_[k]);
}

}  // namespace hazardlab::conformance
