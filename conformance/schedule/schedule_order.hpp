// "Finished before started" under a schedule: the happens-before relation of a model, plus what the
// gates and drains of the program make definite. At every host point (just before a command), work the
// model takes as done there finished before any work it holds behind a gate still closed there started.
// With gates held and released at known points, this turns many races into definite answers, and a
// mutant model that forgets a rule makes a definite prediction the GPU can refute.
#pragma once

#include <cstdint>
#include <vector>

#include "conformance/model/happens_before.hpp"

namespace hazardlab::conformance {

class ActionSet {
 public:
  explicit ActionSet(std::size_t size = 0) : words_((size + 63) / 64, 0) {}
  void insert(ActionId a) { words_[a / 64] |= std::uint64_t{1} << (a % 64); }
  [[nodiscard]] bool contains(ActionId a) const { return (words_[a / 64] >> (a % 64)) & 1U; }
  bool merge(const ActionSet& other);  // true when it grew

 private:
  std::vector<std::uint64_t> words_;
};

class ScheduleOrder {
 public:
  explicit ScheduleOrder(const HappensBefore& hb);
  // `before` finished before `after` started, by the model's rules or by the schedule.
  [[nodiscard]] bool ordered(ActionId before, ActionId after) const { return before_[after].contains(before); }
  // What the model takes as finished, and as not yet started, when the host begins command `k`.
  [[nodiscard]] const ActionSet& done_at(CommandIndex k) const { return done_[k]; }
  [[nodiscard]] const ActionSet& held_at(CommandIndex k) const { return held_[k]; }

 private:
  std::vector<ActionSet> before_;  // before_[b]: the actions that finish before b starts
  std::vector<ActionSet> done_;
  std::vector<ActionSet> held_;
};

}  // namespace hazardlab::conformance
