// The happens-before order of a running program, kept online with vector clocks: which stream work the
// host has synchronized with. It applies the same rules as the conformance model (conformance/model),
// through the same predicates (rules.hpp: rule 2 and the deviations that weaken it), one command at a
// time instead of over a whole program. checker/tests/test_model_agreement.cpp checks on thousands of
// generated programs that both give the same answers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "conformance/model/rules.hpp"

namespace hazardlab::check {

using conformance::RuleSet;
using conformance::StreamKind;
using conformance::StreamWorkFacts;

using StreamSlot = std::size_t;  // a stream, numbered densely in the order it was first seen
using EventSlot = std::size_t;
using ContextSlot = std::size_t;

// Component s: how many of stream s's work items are known to have run.
using Clock = std::vector<std::uint64_t>;
void join(Clock& into, const Clock& from);

// One item of stream work: the stream and its position there (1 = the stream's first item).
struct WorkStamp {
  StreamSlot stream = 0;
  std::uint64_t position = 0;
  friend auto operator<=>(const WorkStamp&, const WorkStamp&) = default;
};

// The order under one rule set. Every host thread's knowledge is joined into one host clock: the checker
// does not see how host threads synchronize with each other and takes them as ordered, so a hand-off
// between threads never raises a false alarm (a race between host threads is not this checker's to find).
class OrderEngine {
 public:
  explicit OrderEngine(RuleSet rules) : rules_(rules) {}

  void add_stream(StreamSlot stream, StreamKind kind, ContextSlot context);
  [[nodiscard]] StreamKind stream_kind(StreamSlot stream) const { return streams_.at(stream).kind; }
  [[nodiscard]] std::size_t stream_count() const { return streams_.size(); }

  // Work enqueued on a stream: it follows the stream's earlier work (rule 1), what the host knew when it
  // enqueued it, the work rule 2 puts ahead of it (unless a deviation lets it skip that) and `also_after`.
  WorkStamp enqueue(StreamSlot stream, const StreamWorkFacts& facts, const Clock* also_after = nullptr);
  // A host function (rule 9): its item's clock is what the function itself may rely on when it runs.
  WorkStamp enqueue_host_function(StreamSlot stream);
  // Rule 3: a record captures its stream's work so far (and what rule 2 put ahead of it, even where a
  // deviation lets the record's own work skip that); a wait orders later work after the latest record.
  WorkStamp record_event(EventSlot event, StreamSlot stream);
  WorkStamp wait_event(StreamSlot stream, EventSlot event);
  // What the rules are asked of a record's and a wait's own work (the marker each enqueues).
  [[nodiscard]] StreamWorkFacts record_facts(StreamSlot stream) const;
  [[nodiscard]] StreamWorkFacts wait_facts(StreamSlot stream, EventSlot event) const;
  // Becomes `other` but for its own rules: every step so far taken under them as `other` took it.
  void take_state_of(const OrderEngine& other) {
    const RuleSet mine = rules_;
    *this = other;
    rules_ = mine;
  }
  [[nodiscard]] bool recorded(EventSlot event) const { return event < events_.size() && events_[event].has_value(); }

  // Rule 4: host synchronizations (a successful query says the same as a synchronize).
  void host_synchronizes_stream(StreamSlot stream);
  void host_synchronizes_event(EventSlot event);
  void host_synchronizes_context(ContextSlot context);
  // Rule 8: a synchronous copy on the legacy stream. From a pageable source it returns after a synchronization
  // of the legacy stream and before its own DMA; to or from other host memory, after its own work; device to
  // device, with no host-side synchronization at all.
  enum class SyncCopy { PageableSource, HostEnd, DeviceToDevice };
  WorkStamp synchronous_copy(StreamSlot legacy, SyncCopy copy);

  // Has the host synchronized with this work? Is a host function ordered after it (by its item's clock)?
  [[nodiscard]] bool host_knows(const WorkStamp& work) const { return known(host_, work); }
  [[nodiscard]] const Clock& host_clock() const { return host_; }
  [[nodiscard]] bool host_function_knows(const WorkStamp& host_function, const WorkStamp& work) const;
  // The clock of the stream's latest item: what it waits for (taken for a copy when it is issued).
  [[nodiscard]] const Clock& latest_clock(StreamSlot stream) const { return streams_.at(stream).frontier; }
  [[nodiscard]] static bool clock_knows(const Clock& clock, const WorkStamp& work) { return known(clock, work); }
  // Host functions enqueued that have not started.
  [[nodiscard]] bool host_functions_waiting() const { return !host_functions_.empty(); }
  [[nodiscard]] const RuleSet& rules() const { return rules_; }
  // A host function has started: its stream's earlier work has run, and the host may rely on that from now
  // on (the host threads that wait for the function are not seen; all host threads are taken as one).
  void host_function_started(const WorkStamp& item);
  // A host function that has returned: its clock is no longer needed.
  void forget_host_function(const WorkStamp& item) { host_functions_.erase(item); }

 private:
  struct Stream {
    StreamKind kind = StreamKind::Legacy;
    ContextSlot context = 0;
    std::uint64_t issued = 0;
    Clock frontier;  // the clock of its latest item
  };
  static bool known(const Clock& clock, const WorkStamp& work) {
    return work.stream < clock.size() && clock[work.stream] >= work.position;
  }
  // Rule 2: joins into `into` the clocks of the other streams' work that work enqueued on `stream` now would
  // wait for.
  void join_implicit_frontier(Clock& into, StreamSlot stream) const;

  RuleSet rules_;
  std::vector<Stream> streams_;
  std::vector<std::optional<Clock>> events_;  // the latest record of each event, if any
  std::map<WorkStamp, Clock> host_functions_;  // the clock of each host function's item
  Clock host_;
};

}  // namespace hazardlab::check
