#include "conformance/model/happens_before.hpp"

#include <map>
#include <optional>
#include <stdexcept>

namespace hazardlab::conformance {
namespace {

bool is_host(BufferKind kind) { return kind != BufferKind::Device; }

// Builds the actions and their direct predecessors, one command at a time, in issue order.
class GraphBuilder {
 public:
  GraphBuilder(const Program& program, const RuleSet& rules) : program_(program), rules_(rules) {
    stream_work_.resize(program.stream_count());
  }

  void lower(CommandIndex index, const Command& c);
  std::vector<Action> actions;
  std::vector<std::vector<ActionId>> predecessors;

 private:
  ActionId add(Action action, std::vector<ActionId> preds);
  ActionId host_call(CommandIndex index, const Command& c, std::vector<BufferId> reads = {},
                     std::vector<BufferId> writes = {}, std::vector<ActionId> waits_for = {});
  ActionId stream_work(ActionId call, const Command& c, StreamId stream, std::vector<BufferId> reads,
                       std::vector<BufferId> writes, bool host_function = false);
  void host_return(ActionId work, const Command& c);
  void lower_copy(CommandIndex index, const Command& c, StreamId stream);
  void lower_sync_memcpy(CommandIndex index, const Command& c);
  std::vector<ActionId> latest_record(EventId event) const;

  const Program& program_;
  const RuleSet& rules_;
  std::map<HostThreadId, ActionId> last_host_;      // host program order, per thread
  std::vector<std::vector<ActionId>> stream_work_;  // per stream, in issue order
  std::map<EventId, ActionId> records_;             // the most recent cudaEventRecord of each event
};

ActionId GraphBuilder::add(Action action, std::vector<ActionId> preds) {
  actions.push_back(std::move(action));
  predecessors.push_back(std::move(preds));
  return actions.size() - 1;
}

ActionId GraphBuilder::host_call(CommandIndex index, const Command& c, std::vector<BufferId> reads,
                                 std::vector<BufferId> writes, std::vector<ActionId> waits_for) {
  // Host program order is not a CUDA rule but C++ sequencing: it is always on.
  if (auto last = last_host_.find(c.thread); last != last_host_.end()) waits_for.push_back(last->second);
  const ActionId id =
      add({index, ActionSite::HostCall, c.thread, 0, false, std::move(reads), std::move(writes)}, std::move(waits_for));
  last_host_[c.thread] = id;
  return id;
}

ActionId GraphBuilder::stream_work(ActionId call, const Command& c, StreamId stream, std::vector<BufferId> reads,
                                   std::vector<BufferId> writes, bool host_function) {
  // Work cannot start before the call that enqueues it.
  std::vector<ActionId> preds{call};
  for (ActionId prior : stream_work_[stream]) {
    // Rule 9 covers the edges that touch a host function, rule 1 the others: either can be switched off alone.
    const bool touches_host_function = host_function || actions[prior].host_function;
    if (rules_.has(touches_host_function ? Rule::kHostFunctionOrder : Rule::kStreamOrder)) preds.push_back(prior);
  }
  if (rules_.has(Rule::kLegacyStreamImplicitSync)) {
    const StreamKind kind = program_.stream_kind(stream);
    for (StreamId other = 0; other < program_.stream_count(); ++other) {
      const StreamKind other_kind = program_.stream_kind(other);
      // Legacy work waits for prior blocking-stream work; blocking-stream work waits for prior legacy work.
      const bool waits = (kind == StreamKind::Legacy && other_kind == StreamKind::Blocking) ||
                         (kind == StreamKind::Blocking && other_kind == StreamKind::Legacy);
      if (waits) preds.insert(preds.end(), stream_work_[other].begin(), stream_work_[other].end());
    }
  }
  const ActionId id = add({actions[call].command, ActionSite::StreamWork, c.thread, stream, host_function,
                           std::move(reads), std::move(writes)},
                          std::move(preds));
  stream_work_[stream].push_back(id);
  return id;
}

void GraphBuilder::host_return(ActionId work, const Command& c) {
  const ActionId id =
      add({actions[work].command, ActionSite::HostReturn, c.thread, 0, false, {}, {}}, {work, last_host_.at(c.thread)});
  last_host_[c.thread] = id;
}

std::vector<ActionId> GraphBuilder::latest_record(EventId event) const {
  // A never-recorded event has captured no work: waiting on it waits for nothing.
  if (auto it = records_.find(event); it != records_.end()) return {it->second};
  return {};
}

// cudaMemcpyAsync, and cudaMemcpy when rule 8 is off (then it is an async copy on the legacy stream).
void GraphBuilder::lower_copy(CommandIndex index, const Command& c, StreamId stream) {
  const BufferId dst = c.writes.at(0);
  const BufferId src = c.reads.at(0);
  const BufferKind dst_kind = program_.buffer_kind(dst);
  const BufferKind src_kind = program_.buffer_kind(src);
  if (is_host(dst_kind) && is_host(src_kind)) throw std::invalid_argument("host-to-host copies are not modelled");
  // Rule 6: a pageable source is staged before the call returns. Without rule 5 a pinned source is taken
  // (wrongly) at the call too: the mutant that believes the copy snapshots its source.
  const bool source_read_at_call = src_kind == BufferKind::HostPageable ? rules_.has(Rule::kAsyncCopyPageableH2DStaged)
                                                                        : !rules_.has(Rule::kAsyncCopyPinnedOnStream);
  // Rule 7: the 12.x text promises no completion for device to pageable; without it, the archived "returns
  // only once the copy has completed". Without rule 5 a pinned destination is (wrongly) complete at return.
  const bool complete_at_return = dst_kind == BufferKind::HostPageable
                                      ? !rules_.has(Rule::kAsyncCopyPageableD2HNoHostGuarantee)
                                      : !rules_.has(Rule::kAsyncCopyPinnedOnStream);
  const bool host_source = is_host(src_kind) && source_read_at_call;
  const ActionId call = host_source ? host_call(index, c, {src}) : host_call(index, c);
  const ActionId work = stream_work(call, c, stream, host_source ? std::vector<BufferId>{} : c.reads, c.writes);
  if (is_host(dst_kind) && complete_at_return) host_return(work, c);
}

// Rule 8: cudaMemcpy, on the legacy stream, as the Runtime API's "Synchronous" list describes it.
void GraphBuilder::lower_sync_memcpy(CommandIndex index, const Command& c) {
  const BufferId dst = c.writes.at(0);
  const BufferId src = c.reads.at(0);
  const BufferKind dst_kind = program_.buffer_kind(dst);
  const BufferKind src_kind = program_.buffer_kind(src);
  if (is_host(dst_kind) && is_host(src_kind)) throw std::invalid_argument("host-to-host copies are not modelled");
  if (src_kind == BufferKind::HostPageable) {
    // "A stream sync is performed before the copy is initiated", the source is staged, and the call may return
    // before the DMA to device memory has completed.
    const ActionId call = host_call(index, c, {src}, {}, stream_work_[kLegacyStream]);
    stream_work(call, c, kLegacyStream, {}, c.writes);
    return;
  }
  const ActionId call = host_call(index, c);
  const ActionId work = stream_work(call, c, kLegacyStream, c.reads, c.writes);
  // Pinned to device is synchronous; device to host "returns only once the copy has completed"; device to
  // device has "no host-side synchronization".
  if (is_host(src_kind) || is_host(dst_kind)) host_return(work, c);
}

void GraphBuilder::lower(CommandIndex index, const Command& c) {
  switch (c.kind) {
    case CommandKind::HostWrite:
    case CommandKind::HostRead:
      host_call(index, c, c.reads, c.writes);
      return;
    case CommandKind::MemcpyAsync:
      lower_copy(index, c, c.stream);
      return;
    case CommandKind::Memcpy:
      if (rules_.has(Rule::kSyncMemcpy))
        lower_sync_memcpy(index, c);
      else
        lower_copy(index, c, kLegacyStream);
      return;
    case CommandKind::MemsetAsync:
      // Rule 10; without it, the mutant that believes the memset is done when the call returns.
      if (rules_.has(Rule::kMemsetAsyncOnStream))
        stream_work(host_call(index, c), c, c.stream, {}, c.writes);
      else
        host_call(index, c, {}, c.writes);
      return;
    case CommandKind::Kernel:
      stream_work(host_call(index, c), c, c.stream, c.reads, c.writes);
      return;
    case CommandKind::HostFunc:
      stream_work(host_call(index, c), c, c.stream, c.reads, c.writes, true);
      return;
    case CommandKind::EventRecord: {
      // Rule 3: the event captures all work enqueued on its stream so far.
      const ActionId work = stream_work(host_call(index, c), c, c.stream, {}, {});
      if (rules_.has(Rule::kEventRecordWait))
        predecessors[work].insert(predecessors[work].end(), stream_work_[c.stream].begin(),
                                  stream_work_[c.stream].end() - 1);
      records_[c.event] = work;
      return;
    }
    case CommandKind::StreamWaitEvent: {
      // Rule 3: later work on the stream follows this marker (rule 1), which follows the recorded work.
      const ActionId work = stream_work(host_call(index, c), c, c.stream, {}, {});
      if (rules_.has(Rule::kEventRecordWait))
        for (ActionId record : latest_record(c.event)) predecessors[work].push_back(record);
      return;
    }
    case CommandKind::EventSynchronize:
      host_call(index, c, {}, {},
                rules_.has(Rule::kHostSynchronization) ? latest_record(c.event) : std::vector<ActionId>{});
      return;
    case CommandKind::EventQuery: {
      // Only a query the program saw succeed orders anything; a NotReady answer is no synchronization.
      const bool orders = rules_.has(Rule::kHostSynchronization) && c.observed_complete;
      host_call(index, c, {}, {}, orders ? latest_record(c.event) : std::vector<ActionId>{});
      return;
    }
    case CommandKind::StreamSynchronize:
      host_call(index, c, {}, {},
                rules_.has(Rule::kHostSynchronization) ? stream_work_[c.stream] : std::vector<ActionId>{});
      return;
    case CommandKind::DeviceSynchronize: {
      std::vector<ActionId> all;
      if (rules_.has(Rule::kHostSynchronization))
        for (const auto& work : stream_work_) all.insert(all.end(), work.begin(), work.end());
      host_call(index, c, {}, {}, std::move(all));
      return;
    }
  }
}

}  // namespace

HappensBefore::HappensBefore(const Program& program, const RuleSet& rules) {
  GraphBuilder builder(program, rules);
  for (CommandIndex i = 0; i < program.commands().size(); ++i) builder.lower(i, program.commands()[i]);
  actions_ = std::move(builder.actions);
  reaches_.assign(actions_.size(), std::vector<bool>(actions_.size(), false));
  for (ActionId a = 0; a < actions_.size(); ++a) {
    for (ActionId pred : builder.predecessors[a]) {
      reaches_[a][pred] = true;
      for (ActionId earlier = 0; earlier < pred; ++earlier)
        if (reaches_[pred][earlier]) reaches_[a][earlier] = true;
    }
  }
}

}  // namespace hazardlab::conformance
