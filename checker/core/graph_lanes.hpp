// The order engine's lanes of launched graphs (graph_nodes.hpp), by instantiation and lane. A lane is made once and
// kept while its executable lives; once the executable is gone (destroyed, or changed and no longer followed), its
// lanes are given back and reused by a later instantiation in the same context, so that a program that instantiates
// graph after graph does not grow every clock without end. A reused lane orders the new nodes after the old
// executable's: at worst a race with a gone executable's last launch is missed, never a false alarm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "checker/core/order.hpp"

namespace hazardlab::check {

class GraphLanes {
 public:
  // The lane's slot: the one it has, or one given back in its context; nullopt: the caller makes one (made()).
  std::optional<StreamSlot> slot(std::uint64_t instance, std::size_t lane, std::uint64_t context) {
    if (auto it = live_.find({instance, lane}); it != live_.end()) return it->second.slot;
    std::vector<StreamSlot>& free = free_[context];
    if (free.empty()) return std::nullopt;
    const StreamSlot reused = free.back();
    free.pop_back();
    live_[{instance, lane}] = Lane{reused, context};
    return reused;
  }
  void made(std::uint64_t instance, std::size_t lane, std::uint64_t context, StreamSlot slot) {
    live_[{instance, lane}] = Lane{slot, context};
    slots_.insert(slot);
  }
  void instance_gone(std::uint64_t instance) {
    for (auto it = live_.lower_bound({instance, 0}); it != live_.end() && it->first.first == instance;) {
      free_[it->second.context].push_back(it->second.slot);
      it = live_.erase(it);
    }
  }
  [[nodiscard]] bool is_lane(StreamSlot slot) const { return slots_.count(slot) != 0; }
  [[nodiscard]] std::size_t made_count() const { return slots_.size(); }

 private:
  struct Lane {
    StreamSlot slot = 0;
    std::uint64_t context = 0;
  };
  std::map<std::pair<std::uint64_t, std::size_t>, Lane> live_;
  std::map<std::uint64_t, std::vector<StreamSlot>> free_;  // by context
  std::set<StreamSlot> slots_;
};

}  // namespace hazardlab::check
