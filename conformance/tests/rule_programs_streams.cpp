// Programs for the ordering rules between streams and the host: stream order, the legacy stream,
// events, host synchronization and host functions.
#include "rule_programs.hpp"

namespace hazardlab::conformance::testing {
namespace {

using enum BufferKind;
using enum StreamKind;

// Kernel writes d on `producer`, kernel reads d on `consumer`.
RuleProgram producer_consumer(std::string name, Rule rule, StreamKind producer_kind, StreamKind consumer_kind,
                              bool same_stream, bool expect_race) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const StreamId producer = producer_kind == Legacy ? kLegacyStream : p.add_stream(producer_kind);
  const StreamId consumer =
      same_stream ? producer : (consumer_kind == Legacy ? kLegacyStream : p.add_stream(consumer_kind));
  const CommandIndex write = p.kernel({}, {d}, producer);
  const CommandIndex read = p.kernel({d}, {}, consumer);
  std::set<WriteId> expected{write};
  if (expect_race) expected.insert(kInitialValue);
  return {std::move(name), rule, std::move(p), read, d, expected};
}

// Kernel writes d on s1, the event is recorded on s1 and waited on by s2 (the wait issued `wait_first`
// or after the record), a kernel reads d on s2. `rewrite` adds a second write and re-record after the wait.
RuleProgram event_program(std::string name, bool wait_first, bool rewrite) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const StreamId s1 = p.add_stream(NonBlocking);
  const StreamId s2 = p.add_stream(NonBlocking);
  const EventId e = p.add_event();
  if (wait_first) p.stream_wait_event(s2, e);
  const CommandIndex write = p.kernel({}, {d}, s1);
  p.event_record(e, s1);
  if (!wait_first) p.stream_wait_event(s2, e);
  std::set<WriteId> expected{wait_first ? kInitialValue : write, write};
  if (rewrite) {
    expected.insert(p.kernel({}, {d}, s1));
    p.event_record(e, s1);
  }
  const CommandIndex read = p.kernel({d}, {}, s2);
  return {std::move(name), Rule::kEventRecordWait, std::move(p), read, d, expected};
}

enum class HostSync { StreamSync, OtherStreamSync, EventSync, DeviceSync, QueryComplete, QueryNotReady };

// A device-to-pinned copy on s, then a host synchronization, then the host reads the destination.
RuleProgram host_sync_program(std::string name, HostSync sync) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const BufferId h = p.add_buffer(HostPinned, "h");
  const StreamId s = p.add_stream(NonBlocking);
  const StreamId other = p.add_stream(NonBlocking);
  const EventId e = p.add_event();
  const CommandIndex copy = p.memcpy_async(h, d, s);
  p.event_record(e, s);
  switch (sync) {
    case HostSync::StreamSync:
      p.stream_synchronize(s);
      break;
    case HostSync::OtherStreamSync:
      p.stream_synchronize(other);
      break;
    case HostSync::EventSync:
      p.event_synchronize(e);
      break;
    case HostSync::DeviceSync:
      p.device_synchronize();
      break;
    case HostSync::QueryComplete:
      p.event_query(e, true);
      break;
    case HostSync::QueryNotReady:
      p.event_query(e, false);
      break;
  }
  const CommandIndex read = p.host_read(h);
  const bool races = sync == HostSync::OtherStreamSync || sync == HostSync::QueryNotReady;
  std::set<WriteId> expected{copy};
  if (races) expected.insert(kInitialValue);
  return {std::move(name), Rule::kHostSynchronization, std::move(p), read, h, expected};
}

// A device-to-pinned copy on s1 and a host function reading the destination on s1 or on another stream.
RuleProgram host_function_reads_copy(std::string name, bool same_stream) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const BufferId h = p.add_buffer(HostPinned, "h");
  const StreamId s1 = p.add_stream(NonBlocking);
  const StreamId s2 = same_stream ? s1 : p.add_stream(NonBlocking);
  const CommandIndex copy = p.memcpy_async(h, d, s1);
  const CommandIndex read = p.host_func({h}, {}, s2);
  std::set<WriteId> expected{copy};
  if (!same_stream) expected.insert(kInitialValue);
  return {std::move(name), Rule::kHostFunctionOrder, std::move(p), read, h, expected};
}

// A host function fills a pinned buffer, and a later copy on the same stream sends it to the device.
RuleProgram copy_waits_for_host_function() {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const BufferId h = p.add_buffer(HostPinned, "h");
  const StreamId s = p.add_stream(NonBlocking);
  const CommandIndex fill = p.host_func({}, {h}, s);
  const CommandIndex copy = p.memcpy_async(d, h, s);
  return {"LaterCopyWaitsForHostFunction", Rule::kHostFunctionOrder, std::move(p), copy, h, {fill}};
}

}  // namespace

std::vector<RuleProgram> stream_rule_programs() {
  std::vector<RuleProgram> v;
  v.push_back(
      producer_consumer("SameStreamKernelSeesEarlierWrite", Rule::kStreamOrder, NonBlocking, NonBlocking, true, false));
  v.push_back(producer_consumer("KernelsOnTwoCreatedStreamsRace", Rule::kStreamOrder, Blocking, Blocking, false, true));
  v.push_back(producer_consumer("BlockingStreamWaitsForLegacyWork", Rule::kLegacyStreamImplicitSync, Legacy, Blocking,
                                false, false));
  v.push_back(producer_consumer("LegacyWorkWaitsForBlockingStream", Rule::kLegacyStreamImplicitSync, Blocking, Legacy,
                                false, false));
  v.push_back(producer_consumer("NonBlockingStreamDoesNotWait", Rule::kLegacyStreamImplicitSync, Legacy, NonBlocking,
                                false, true));
  v.push_back(producer_consumer("LegacyDoesNotWaitForNonBlocking", Rule::kLegacyStreamImplicitSync, NonBlocking, Legacy,
                                false, true));
  v.push_back(event_program("WaitAfterRecordOrdersConsumer", false, false));
  v.push_back(event_program("WaitBeforeRecordWaitsForNothing", true, false));
  v.push_back(event_program("RerecordAfterWaitHasNoEffect", false, true));
  v.push_back(host_sync_program("StreamSynchronizeOrdersHostRead", HostSync::StreamSync));
  v.push_back(host_sync_program("EventSynchronizeOrdersHostRead", HostSync::EventSync));
  v.push_back(host_sync_program("DeviceSynchronizeOrdersHostRead", HostSync::DeviceSync));
  v.push_back(host_sync_program("EventQueryObservedCompleteOrdersHostRead", HostSync::QueryComplete));
  v.push_back(host_sync_program("SynchronizingAnotherStreamDoesNotOrder", HostSync::OtherStreamSync));
  v.push_back(host_sync_program("EventQueryNotReadyDoesNotOrder", HostSync::QueryNotReady));
  v.push_back(host_function_reads_copy("HostFunctionSeesEarlierCopyOnItsStream", true));
  v.push_back(host_function_reads_copy("HostFunctionOnAnotherStreamRaces", false));
  v.push_back(copy_waits_for_host_function());
  return v;
}

}  // namespace hazardlab::conformance::testing
