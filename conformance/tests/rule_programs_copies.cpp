// Programs for the copy and memset rules: when a copy touches host memory, what cudaMemcpy waits for,
// and when cudaMemsetAsync writes.
#include "rule_programs.hpp"

namespace hazardlab::conformance::testing {
namespace {

using enum BufferKind;
using enum StreamKind;

// The host fills `source`, copies it to the device on s, then rewrites it (after an event
// synchronization when `synchronize_first`). Checked: what the copy read.
RuleProgram host_rewrites_source(std::string name, Rule rule, BufferKind source_kind, bool synchronize_first) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const BufferId h = p.add_buffer(source_kind, "h");
  const StreamId s = p.add_stream(NonBlocking);
  const EventId e = p.add_event();
  const CommandIndex first = p.host_write(h);
  const CommandIndex copy = p.memcpy_async(d, h, s);
  if (synchronize_first) {
    p.event_record(e, s);
    p.event_synchronize(e);
  }
  const CommandIndex second = p.host_write(h);
  std::set<WriteId> expected{first};
  if (source_kind == HostPinned && !synchronize_first) expected.insert(second);
  return {std::move(name), rule, std::move(p), copy, h, expected};
}

// A host-to-device copy (async on s1, or cudaMemcpy), then a kernel on a non-blocking stream reads d.
RuleProgram nonblocking_consumer_after_h2d(std::string name, Rule rule, bool sync_memcpy) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const BufferId h = p.add_buffer(HostPageable, "h");
  const StreamId s1 = p.add_stream(NonBlocking);
  const StreamId s2 = p.add_stream(NonBlocking);
  const CommandIndex copy = sync_memcpy ? p.memcpy(d, h) : p.memcpy_async(d, h, s1);
  const CommandIndex read = p.kernel({d}, {}, s2);
  return {std::move(name), rule, std::move(p), read, d, {kInitialValue, copy}};
}

// A device-to-host copy into `destination` (async on s, or cudaMemcpy), then the host reads it, after a
// stream synchronization when `synchronize`.
RuleProgram host_reads_destination(std::string name, Rule rule, BufferKind destination_kind, bool sync_memcpy,
                                   bool synchronize) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const BufferId h = p.add_buffer(destination_kind, "h");
  const StreamId s = p.add_stream(NonBlocking);
  const CommandIndex copy = sync_memcpy ? p.memcpy(h, d) : p.memcpy_async(h, d, s);
  if (synchronize) p.stream_synchronize(s);
  const CommandIndex read = p.host_read(h);
  std::set<WriteId> expected{copy};
  if (!sync_memcpy && !synchronize) expected.insert(kInitialValue);
  return {std::move(name), rule, std::move(p), read, h, expected};
}

// An async device-to-pageable copy on the legacy stream, then cudaMemcpy sends that buffer to the device:
// cudaMemcpy synchronizes the legacy stream before staging, so it stages the copied data.
RuleProgram sync_memcpy_waits_for_legacy_stream() {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const BufferId h = p.add_buffer(HostPageable, "h");
  const BufferId d2 = p.add_buffer(Device, "d2");
  const CommandIndex readback = p.memcpy_async(h, d, kLegacyStream);
  const CommandIndex upload = p.memcpy(d2, h);
  return {"PageableToDeviceSynchronizesLegacyStreamFirst", Rule::kSyncMemcpy, std::move(p), upload, h, {readback}};
}

// A host function on s writes pageable h, then cudaMemcpy sends h to the device. Its stream sync is of the
// legacy stream, so it waits for a blocking s (rule 2) but not for a non-blocking one: what it stages.
RuleProgram sync_memcpy_after_host_function(std::string name, Rule rule, StreamKind kind) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const BufferId h = p.add_buffer(HostPageable, "h");
  const StreamId s = p.add_stream(kind);
  const CommandIndex write = p.host_func({}, {h}, s);
  const CommandIndex upload = p.memcpy(d, h);
  std::set<WriteId> expected{write};
  if (kind == NonBlocking) expected.insert(kInitialValue);
  return {std::move(name), rule, std::move(p), upload, h, expected};
}

// cudaMemsetAsync on d, then a copy of d to pinned memory on the same stream or on a non-blocking one.
RuleProgram memset_then_copy(std::string name, StreamKind memset_stream, bool same_stream) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const BufferId h = p.add_buffer(HostPinned, "h");
  const StreamId s1 = memset_stream == Legacy ? kLegacyStream : p.add_stream(memset_stream);
  const StreamId s2 = same_stream ? s1 : p.add_stream(NonBlocking);
  const CommandIndex memset = p.memset_async(d, s1);
  const CommandIndex copy = p.memcpy_async(h, d, s2);
  std::set<WriteId> expected{memset};
  if (!same_stream) expected.insert(kInitialValue);
  return {std::move(name), Rule::kMemsetAsyncOnStream, std::move(p), copy, d, expected};
}

}  // namespace

std::vector<RuleProgram> copy_rule_programs() {
  std::vector<RuleProgram> v;
  v.push_back(host_rewrites_source("HostRewriteOfPinnedSourceRacesWithCopy", Rule::kAsyncCopyPinnedOnStream, HostPinned,
                                   false));
  v.push_back(host_rewrites_source("EventSynchronizeBeforeRewriteProtectsPinnedSource", Rule::kAsyncCopyPinnedOnStream,
                                   HostPinned, true));
  v.push_back(host_reads_destination("HostReadOfPinnedDestinationRacesWithCopy", Rule::kAsyncCopyPinnedOnStream,
                                     HostPinned, false, false));
  v.push_back(host_rewrites_source("PageableSourceIsStagedBeforeReturn", Rule::kAsyncCopyPageableH2DStaged,
                                   HostPageable, false));
  v.push_back(nonblocking_consumer_after_h2d("PageableCopyStillWritesDeviceOnStream", Rule::kAsyncCopyPageableH2DStaged,
                                             false));
  v.push_back(host_reads_destination("HostReadOfPageableDestinationRacesWithCopy",
                                     Rule::kAsyncCopyPageableD2HNoHostGuarantee, HostPageable, false, false));
  v.push_back(host_reads_destination("StreamSynchronizeOrdersPageableDestination",
                                     Rule::kAsyncCopyPageableD2HNoHostGuarantee, HostPageable, false, true));
  v.push_back(host_reads_destination("DeviceToPinnedReturnsAfterCopy", Rule::kSyncMemcpy, HostPinned, true, false));
  v.push_back(host_reads_destination("DeviceToPageableReturnsAfterCopy", Rule::kSyncMemcpy, HostPageable, true, false));
  v.push_back(sync_memcpy_waits_for_legacy_stream());
  v.push_back(sync_memcpy_after_host_function("PageableToDeviceSyncWaitsForBlockingStream",
                                              Rule::kLegacyStreamImplicitSync, Blocking));
  v.push_back(sync_memcpy_after_host_function("PageableToDeviceSyncDoesNotWaitForNonBlockingStream", Rule::kSyncMemcpy,
                                              NonBlocking));
  v.push_back(
      nonblocking_consumer_after_h2d("PageableToDeviceIsNotAFenceForNonBlockingStream", Rule::kSyncMemcpy, true));
  v.push_back(memset_then_copy("CopyOnSameStreamSeesMemset", NonBlocking, true));
  v.push_back(memset_then_copy("LegacyMemsetRacesWithNonBlockingCopy", Legacy, false));
  return v;
}

}  // namespace hazardlab::conformance::testing
