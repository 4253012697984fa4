// The builder behind HappensBefore, shared by happens_before.cpp and lower_copies.cpp only.
#pragma once

#include <map>
#include <vector>

#include "conformance/model/happens_before.hpp"

namespace hazardlab::conformance {

// Builds the actions, their happens-before rows (incrementally, so a drain can ask what is ordered so far)
// and which gates are closed, one command at a time, in issue order.
struct HappensBefore::Builder {
  Builder(const Program& program, const RuleSet& rules) : program_(program), rules_(rules) {
    stream_work_.resize(program.stream_count());
  }

  void lower(CommandIndex index, const Command& c);
  std::vector<Action> actions;
  std::vector<std::vector<bool>> reaches;
  std::vector<CommandActions> commands;
  std::map<GateId, ActionId> closed;  // gates closed now, with their stream work

  ActionId add(Action action, const std::vector<ActionId>& preds);
  ActionId host_call(CommandIndex index, const Command& c, std::vector<BufferId> reads = {},
                     std::vector<BufferId> writes = {}, std::vector<ActionId> waits_for = {});
  ActionId stream_work(ActionId call, const Command& c, StreamId stream, std::vector<BufferId> reads,
                       std::vector<BufferId> writes, bool host_function = false, std::vector<ActionId> extra = {});
  void host_return(ActionId work, const Command& c);
  void lower_copy(CommandIndex index, const Command& c, StreamId stream);
  void lower_sync_memcpy(CommandIndex index, const Command& c);
  // Rule 2: the work of other streams that work enqueued on `stream` now would wait for.
  std::vector<ActionId> implicit_waits(StreamId stream) const;
  // A command whose stream work skips rule 2's waits under a deviation the rule set allows.
  bool exempt_from_implicit_sync(const Command& c) const;
  std::vector<ActionId> latest_record(EventId event) const;
  std::vector<ActionId> all_stream_work() const;
  bool behind_closed_gate(ActionId a) const;

  const Program& program_;
  const RuleSet& rules_;
  std::map<HostThreadId, ActionId> last_host_;      // host program order, per thread
  std::vector<std::vector<ActionId>> stream_work_;  // per stream, in issue order
  std::map<EventId, ActionId> records_;             // the most recent cudaEventRecord of each event
};

}  // namespace hazardlab::conformance
