#include "conformance/model/happens_before.hpp"

#include <algorithm>

#include "conformance/model/graph_builder.hpp"

namespace hazardlab::conformance {

using Builder = HappensBefore::Builder;

ActionId Builder::add(Action action, const std::vector<ActionId>& preds) {
  const ActionId id = actions.size();
  actions.push_back(std::move(action));
  for (auto& row : reaches) row.push_back(false);
  std::vector<bool> row(id + 1, false);
  for (ActionId p : preds) {
    row[p] = true;
    for (ActionId earlier = 0; earlier < p; ++earlier)
      if (reaches[p][earlier]) row[earlier] = true;
  }
  reaches.push_back(std::move(row));
  return id;
}

ActionId Builder::host_call(CommandIndex index, const Command& c, std::vector<BufferId> reads,
                            std::vector<BufferId> writes, std::vector<ActionId> waits_for) {
  // Host program order is not a CUDA rule but C++ sequencing: it is always on.
  if (auto last = last_host_.find(c.thread); last != last_host_.end()) waits_for.push_back(last->second);
  const ActionId id =
      add({index, ActionSite::HostCall, c.thread, 0, false, std::move(reads), std::move(writes)}, waits_for);
  last_host_[c.thread] = id;
  commands[index].call = id;
  return id;
}

ActionId Builder::stream_work(ActionId call, const Command& c, StreamId stream, std::vector<BufferId> reads,
                              std::vector<BufferId> writes, bool host_function, std::vector<ActionId> extra) {
  // Work cannot start before the call that enqueues it.
  std::vector<ActionId> preds{call};
  preds.insert(preds.end(), extra.begin(), extra.end());
  for (ActionId prior : stream_work_[stream]) {
    // Rule 9 covers the edges that touch a host function, rule 1 the others: either can be switched off alone.
    const bool touches_host_function = host_function || actions[prior].host_function;
    if (rules_.has(touches_host_function ? Rule::kHostFunctionOrder : Rule::kStreamOrder)) preds.push_back(prior);
  }
  const std::vector<ActionId> implicit =
      exempt_from_implicit_sync(c) ? std::vector<ActionId>{} : implicit_waits(stream);
  preds.insert(preds.end(), implicit.begin(), implicit.end());
  const CommandIndex index = actions[call].command;
  const ActionId id =
      add({index, ActionSite::StreamWork, c.thread, stream, host_function, std::move(reads), std::move(writes)}, preds);
  stream_work_[stream].push_back(id);
  commands[index].work = id;
  return id;
}

void Builder::host_return(ActionId work, const Command& c) {
  const CommandIndex index = actions[work].command;
  const ActionId id = add({index, ActionSite::HostReturn, c.thread, 0, false, {}, {}}, {work, last_host_.at(c.thread)});
  last_host_[c.thread] = id;
  commands[index].ret = id;
}

bool Builder::exempt_from_implicit_sync(const Command& c) const {
  StreamWorkFacts work{.stream = program_.stream_kind(c.stream)};
  work.marker = c.kind == CommandKind::EventRecord || c.kind == CommandKind::StreamWaitEvent;
  work.waits_for_unrecorded_event = c.kind == CommandKind::StreamWaitEvent && latest_record(c.event).empty();
  if (c.kind == CommandKind::MemcpyAsync) {
    work.pinned_upload = program_.buffer_kind(c.reads.at(0)) == BufferKind::HostPinned &&
                         program_.buffer_kind(c.writes.at(0)) == BufferKind::Device;
    work.bytes = kBufferBytes;
    if (!work.pinned_upload) return false;
  }
  return skips_implicit_sync(rules_, work);
}

std::vector<ActionId> Builder::implicit_waits(StreamId stream) const {
  std::vector<ActionId> preds;
  const StreamKind kind = program_.stream_kind(stream);
  for (StreamId other = 0; other < program_.stream_count(); ++other) {
    if (implicitly_waits_for(rules_, kind, program_.stream_kind(other)))
      preds.insert(preds.end(), stream_work_[other].begin(), stream_work_[other].end());
  }
  return preds;
}

std::vector<ActionId> Builder::latest_record(EventId event) const {
  // A never-recorded event has captured no work: waiting on it waits for nothing.
  if (auto it = records_.find(event); it != records_.end()) return {it->second};
  return {};
}

std::vector<ActionId> Builder::all_stream_work() const {
  std::vector<ActionId> all;
  for (const auto& work : stream_work_) all.insert(all.end(), work.begin(), work.end());
  return all;
}

bool Builder::behind_closed_gate(ActionId a) const {
  return std::any_of(closed.begin(), closed.end(),
                     [&](const auto& gate) { return gate.second == a || reaches[a][gate.second]; });
}

void Builder::lower(CommandIndex index, const Command& c) {
  for (const auto& gate : closed) commands[index].closed_gates.push_back(gate.second);
  switch (c.kind) {
    case CommandKind::HostWrite:
    case CommandKind::HostRead:
      host_call(index, c, c.reads, c.writes);
      break;
    case CommandKind::MemcpyAsync:
      lower_copy(index, c, c.stream);
      break;
    case CommandKind::Memcpy:
      if (rules_.has(Rule::kSyncMemcpy))
        lower_sync_memcpy(index, c);
      else
        lower_copy(index, c, kLegacyStream);
      break;
    case CommandKind::MemsetAsync:
      // Rule 10; without it, the mutant that believes the memset is done when the call returns.
      if (rules_.has(Rule::kMemsetAsyncOnStream))
        stream_work(host_call(index, c), c, c.stream, {}, c.writes);
      else
        host_call(index, c, {}, c.writes);
      break;
    case CommandKind::Kernel:
      stream_work(host_call(index, c), c, c.stream, c.reads, c.writes);
      break;
    case CommandKind::HostFunc:
      stream_work(host_call(index, c), c, c.stream, c.reads, c.writes, true);
      break;
    case CommandKind::EventRecord: {
      // Rule 3: the event captures all work enqueued on its stream so far.
      std::vector<ActionId> captured;
      if (rules_.has(Rule::kEventRecordWait)) captured = stream_work_[c.stream];
      const ActionId work = stream_work(host_call(index, c), c, c.stream, {}, {}, false, captured);
      records_[c.event] = work;
      if (exempt_from_implicit_sync(c)) {
        // The deviation: the record on the stream skipped the legacy work, the event itself did not.
        std::vector<ActionId> event_waits = implicit_waits(c.stream);
        event_waits.push_back(work);
        records_[c.event] = add({index, ActionSite::StreamWork, c.thread, c.stream, false, {}, {}}, event_waits);
      }
      commands[index].event = records_[c.event];
      break;
    }
    case CommandKind::StreamWaitEvent:
      // Rule 3: later work on the stream follows this marker (rule 1), which follows the recorded work.
      stream_work(host_call(index, c), c, c.stream, {}, {}, false,
                  rules_.has(Rule::kEventRecordWait) ? latest_record(c.event) : std::vector<ActionId>{});
      break;
    case CommandKind::EventSynchronize:
      host_call(index, c, {}, {},
                rules_.has(Rule::kHostSynchronization) ? latest_record(c.event) : std::vector<ActionId>{});
      break;
    case CommandKind::EventQuery:
      // Only a query the program saw succeed orders anything; a NotReady answer is no synchronization.
      host_call(index, c, {}, {},
                rules_.has(Rule::kHostSynchronization) && c.observed_complete ? latest_record(c.event)
                                                                              : std::vector<ActionId>{});
      break;
    case CommandKind::StreamSynchronize:
    case CommandKind::StreamQuery: {
      // Synchronizing the legacy stream waits for what work enqueued there now would wait for (rule 2), as
      // the stream sync of a pageable cudaMemcpy does (lower_copies.cpp): conformance_gpu/probes showed it. A query
      // the program saw succeed says the same; one that answered cudaErrorNotReady orders nothing.
      std::vector<ActionId> waits;
      if (rules_.has(Rule::kHostSynchronization) && (c.kind == CommandKind::StreamSynchronize || c.observed_complete)) {
        waits = stream_work_[c.stream];
        if (c.stream == kLegacyStream) {
          const std::vector<ActionId> implicit = implicit_waits(kLegacyStream);
          waits.insert(waits.end(), implicit.begin(), implicit.end());
        }
      }
      host_call(index, c, {}, {}, std::move(waits));
      break;
    }
    case CommandKind::DeviceSynchronize:
      host_call(index, c, {}, {}, rules_.has(Rule::kHostSynchronization) ? all_stream_work() : std::vector<ActionId>{});
      break;
    case CommandKind::GateClose:
      // The gate is stream work like any other; what it holds back is what these rules order after it.
      closed[c.gate] = stream_work(host_call(index, c), c, c.stream, {}, {}, c.gate_style == GateStyle::HostFunction);
      break;
    case CommandKind::GateOpen:
      host_call(index, c);
      closed.erase(c.gate);
      break;
    case CommandKind::Drain: {
      // The host waits until everything these rules do not hold behind a closed gate has run: afterwards the
      // model takes that work as done (a drain the rules expect not to block).
      std::vector<ActionId> settled;
      for (ActionId a : all_stream_work())
        if (!behind_closed_gate(a)) settled.push_back(a);
      host_call(index, c, {}, {}, settled);
      break;
    }
  }
  if (c.watchdog_opened) closed.clear();
}

HappensBefore::HappensBefore(const Program& program, const RuleSet& rules) {
  Builder builder(program, rules);
  builder.commands.resize(program.commands().size());
  for (CommandIndex i = 0; i < program.commands().size(); ++i) builder.lower(i, program.commands()[i]);
  actions_ = std::move(builder.actions);
  reaches_ = std::move(builder.reaches);
  commands_ = std::move(builder.commands);
  for (const auto& gate : builder.closed) closed_at_end_.push_back(gate.second);
}

}  // namespace hazardlab::conformance
