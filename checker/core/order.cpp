#include "checker/core/order.hpp"

#include <algorithm>
#include <stdexcept>

namespace hazardlab::check {

void join(Clock& into, const Clock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

void OrderEngine::add_stream(StreamSlot stream, StreamKind kind, ContextSlot context) {
  if (stream != streams_.size()) throw std::logic_error("streams are added in slot order");
  streams_.push_back(Stream{kind, context, 0, {}});
}

void OrderEngine::join_implicit_frontier(Clock& into, StreamSlot stream) const {
  const Stream& waiting = streams_.at(stream);
  for (const Stream& other : streams_) {
    if (other.context == waiting.context && conformance::implicitly_waits_for(rules_, waiting.kind, other.kind))
      join(into, other.frontier);
  }
}

WorkStamp OrderEngine::enqueue(StreamSlot stream, const StreamWorkFacts& facts, const Clock* also_after) {
  // The new item's clock is built in its stream's frontier itself, which it replaces: every edge only adds to
  // it (rule 1 keeps the stream's earlier work, and a join never lowers a component), and no clock is allocated
  // on the path every copy takes. The streams' frontiers joined in are never this one's growing copy: joining
  // a clock into itself leaves it as it was.
  Stream& s = streams_.at(stream);
  Clock& clock = s.frontier;  // rule 1 (and rule 9, which gives a host function the same edges)
  join(clock, host_);         // work cannot start before the call that enqueued it
  if (!conformance::skips_implicit_sync(rules_, facts)) join_implicit_frontier(clock, stream);
  if (also_after != nullptr) join(clock, *also_after);
  if (clock.size() <= stream) clock.resize(stream + 1, 0);
  clock[stream] = ++s.issued;
  return WorkStamp{stream, s.issued};
}

WorkStamp OrderEngine::enqueue_host_function(StreamSlot stream) {
  const WorkStamp item = enqueue(stream, StreamWorkFacts{.stream = stream_kind(stream)});
  host_functions_[item] = streams_[stream].frontier;
  return item;
}

StreamWorkFacts OrderEngine::record_facts(StreamSlot stream) const {
  return StreamWorkFacts{.stream = stream_kind(stream), .marker = true};
}

StreamWorkFacts OrderEngine::wait_facts(StreamSlot stream, EventSlot event) const {
  return StreamWorkFacts{
      .stream = stream_kind(stream), .marker = true, .waits_for_unrecorded_event = !recorded(event)};
}

WorkStamp OrderEngine::record_event(EventSlot event, StreamSlot stream) {
  const StreamWorkFacts facts = record_facts(stream);
  const WorkStamp item = enqueue(stream, facts);
  // The event's clock is rewritten in place: a record per step of a launch loop allocates nothing.
  if (events_.size() <= event) events_.resize(event + 1);
  std::optional<Clock>& captured = events_[event];
  if (!captured) captured.emplace();
  captured->assign(streams_[stream].frontier.begin(), streams_[stream].frontier.end());
  // The record's own work may skip rule 2 under a deviation; the event still captures that work.
  if (conformance::skips_implicit_sync(rules_, facts)) join_implicit_frontier(*captured, stream);
  return item;
}

WorkStamp OrderEngine::wait_event(StreamSlot stream, EventSlot event) {
  // Rule 3 (a never-recorded event waits for nothing).
  return enqueue(stream, wait_facts(stream, event), recorded(event) ? &*events_[event] : nullptr);
}

void OrderEngine::host_synchronizes_stream(StreamSlot stream) {
  join(host_, streams_.at(stream).frontier);
  // Synchronizing the legacy stream waits for what work enqueued there now would wait for (rule 2).
  if (streams_[stream].kind == StreamKind::Legacy) join_implicit_frontier(host_, stream);
}

void OrderEngine::host_synchronizes_event(EventSlot event) {
  if (recorded(event)) join(host_, *events_[event]);
}

void OrderEngine::host_synchronizes_context(ContextSlot context) {
  for (const Stream& s : streams_)
    if (s.context == context) join(host_, s.frontier);
}

WorkStamp OrderEngine::synchronous_copy(StreamSlot legacy, SyncCopy copy) {
  if (copy == SyncCopy::PageableSource) {
    host_synchronizes_stream(legacy);
    return enqueue(legacy, StreamWorkFacts{.stream = stream_kind(legacy)});
  }
  const WorkStamp item = enqueue(legacy, StreamWorkFacts{.stream = stream_kind(legacy)});
  if (copy == SyncCopy::HostEnd) join(host_, streams_[legacy].frontier);
  return item;
}

void OrderEngine::host_function_started(const WorkStamp& item) {
  if (const auto it = host_functions_.find(item); it != host_functions_.end()) {
    // What ran before the function (rule 9), not the function itself: it has started, not returned, so work
    // enqueued from now on does not wait for it through what the host knows.
    Clock before = it->second;
    before[item.stream] = item.position - 1;
    join(host_, before);
    host_functions_.erase(it);
  }
}

bool OrderEngine::host_function_knows(const WorkStamp& host_function, const WorkStamp& work) const {
  const auto it = host_functions_.find(host_function);
  return it != host_functions_.end() && known(it->second, work);
}

}  // namespace hazardlab::check
