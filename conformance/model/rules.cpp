#include "conformance/model/rules.hpp"

#include <array>

namespace hazardlab::conformance {
namespace {

// "Runtime API" is the CUDA Runtime API reference; "PG" is the CUDA C++ Programming Guide.
constexpr std::array<RuleInfo, kRuleCount> kRules{{
    {Rule::kStreamOrder, "stream-order", "operations on one stream run in issue order",
     "CUDA C++ Programming Guide, Asynchronous Concurrent Execution: Streams"},
    {Rule::kLegacyStreamImplicitSync, "legacy-stream-implicit-sync",
     "work on the legacy (NULL) stream waits for all prior work on blocking streams, and later work on blocking "
     "streams waits for it; cudaStreamNonBlocking streams are exempt",
     "CUDA Runtime API, Stream synchronization behavior: Legacy default stream"},
    {Rule::kEventRecordWait, "event-record-wait",
     "an event captures the work enqueued on its stream at cudaEventRecord; cudaStreamWaitEvent makes later work "
     "of the waiting stream wait for the most recent record before the wait; a never-recorded event waits for "
     "nothing",
     "CUDA Runtime API, cudaEventRecord and cudaStreamWaitEvent"},
    {Rule::kHostSynchronization, "host-synchronization",
     "cudaEventSynchronize, cudaStreamSynchronize, cudaDeviceSynchronize (and a cudaEventQuery or cudaStreamQuery "
     "observed to return cudaSuccess) order later host operations after the captured or queued work",
     "CUDA Runtime API, cudaEventSynchronize, cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventQuery, "
     "cudaStreamQuery"},
    {Rule::kAsyncCopyPinnedOnStream, "async-copy-pinned-on-stream",
     "cudaMemcpyAsync between device and pinned host memory reads or writes the host buffer when it runs on the "
     "stream, not at the call",
     "CUDA Runtime API, API synchronization behavior: Asynchronous (\"for all other transfers, the function should "
     "be fully asynchronous\")"},
    {Rule::kAsyncCopyPageableH2DStaged, "async-copy-pageable-h2d-staged",
     "cudaMemcpyAsync from pageable host memory to the device has read (staged) its source when it returns; the "
     "device write still happens on the stream",
     "CUDA Runtime API, API synchronization behavior: Asynchronous (pageable memory \"staged\" to pinned memory) "
     "and Synchronous (\"return once the pageable buffer has been copied to the staging memory\")"},
    {Rule::kAsyncCopyPageableD2HNoHostGuarantee, "async-copy-pageable-d2h-no-host-guarantee",
     "cudaMemcpyAsync from the device to pageable host memory \"might be synchronous\": no completion at return "
     "is promised, so the host buffer is written when the copy runs on the stream (the 9.2/11.0 pages promised "
     "completion; switching this rule off models that older reading)",
     "CUDA Runtime API 12.x, API synchronization behavior: Asynchronous (\"for transfers between device memory "
     "and pageable host memory, the function might be synchronous with respect to host\")"},
    {Rule::kSyncMemcpy, "sync-memcpy",
     "cudaMemcpy runs on the legacy stream; device to host and pinned host to device return after the copy; "
     "pageable host to device waits for the stream (the legacy stream, so also for the prior blocking-stream work "
     "its work waits for), stages the source and may return before the device write; device to device does not "
     "synchronize the host",
     "CUDA Runtime API, API synchronization behavior: Synchronous (\"a stream sync is performed before the copy is "
     "initiated\"); Stream synchronization behavior: Legacy default stream"},
    {Rule::kHostFunctionOrder, "host-function-order",
     "a host function runs after prior work on its stream, and later work on the stream waits for it",
     "CUDA Runtime API, cudaLaunchHostFunc; CUDA C++ Programming Guide, Host Functions (Callbacks)"},
    {Rule::kMemsetAsyncOnStream, "memset-async-on-stream",
     "cudaMemsetAsync writes its buffer when it runs on the stream, not at the call",
     "CUDA Runtime API, API synchronization behavior: Memset (\"the Async versions are always asynchronous\")"},
}};

constexpr std::array<DeviationInfo, kDeviationCount> kDeviations{{
    {Deviation::kSmallPinnedUploadSkipsImplicitSync, "small-pinned-upload-skips-implicit-sync",
     "a cudaMemcpyAsync from pinned host memory to the device of at most the GPU's threshold (measured to the byte "
     "by each run, RuleSet::small_upload_bytes; 24 KiB where not measured) does not wait for the work rule 2 puts "
     "ahead of it (legacy-stream work for a copy on a blocking stream, and the reverse)",
     "seen by generated programs on an H200 and settled on an H100 (CUDA 13.0 driver) by "
     "conformance_gpu/probes/implicit_sync_small_copies.cu: 0 of 10 trials waited up to 24 KiB, 10 of 10 from 32 KiB; "
     "an event made the same copies wait 10 of 10; an independent probe on an H100 and an H200 saw 28 KiB obey"},
    {Deviation::kStreamSyncSkipsWhatItsMarkersWaitFor, "stream-sync-skips-what-its-markers-wait-for",
     "a cudaEventRecord or cudaStreamWaitEvent on a blocking stream enqueues no work; cudaStreamSynchronize of that "
     "stream need not wait for the legacy-stream work rule 2 puts ahead of them, though an event recorded there "
     "still captures it",
     "seen by generated programs on an H200 and an H100 (CUDA 13.0 driver) and settled for records on the H100 by "
     "conformance_gpu/probes/synchronize_and_legacy_stream.cu: with the legacy stream held, cudaStreamSynchronize of a "
     "blocking stream holding only a record waited 0 of 10 times, cudaEventSynchronize of its event 10 of 10, "
     "and a kernel in place of the record made the synchronize wait 10 of 10"},
    {Deviation::kUnrecordedEventWaitOnLegacyIsNoWork, "unrecorded-event-wait-on-legacy-is-no-work",
     "a cudaStreamWaitEvent on the legacy stream for an event never recorded enqueues no work: blocking-stream work "
     "queued after it need not wait for the blocking-stream work that rule 2 puts ahead of legacy-stream work",
     "seen by a generated program on an H100 (CUDA 13.0 driver, seed 1213461122) and settled there by "
     "conformance_gpu/probes/synchronize_and_legacy_stream.cu: with a blocking stream held, a kernel on a second "
     "blocking stream queued after such a wait on the legacy stream waited 0 of 10 times, after a record there "
     "10 of 10, and after a kernel there 10 of 10"},
}};

}  // namespace

std::span<const RuleInfo> all_rules() { return kRules; }

std::span<const DeviationInfo> all_deviations() { return kDeviations; }

const DeviationInfo& deviation_info(Deviation deviation) { return kDeviations.at(static_cast<std::size_t>(deviation)); }

bool implicitly_waits_for(const RuleSet& rules, StreamKind waiting, StreamKind other) {
  if (!rules.has(Rule::kLegacyStreamImplicitSync)) return false;
  // Legacy work waits for prior blocking-stream work; blocking-stream work waits for prior legacy work.
  return (waiting == StreamKind::Legacy && other == StreamKind::Blocking) ||
         (waiting == StreamKind::Blocking && other == StreamKind::Legacy);
}

bool skips_implicit_sync(const RuleSet& rules, const StreamWorkFacts& work) {
  if (work.pinned_upload) {
    return rules.allows(Deviation::kSmallPinnedUploadSkipsImplicitSync) && work.bytes <= rules.small_upload_bytes();
  }
  if (work.waits_for_unrecorded_event && work.stream == StreamKind::Legacy)
    return rules.allows(Deviation::kUnrecordedEventWaitOnLegacyIsNoWork);
  return work.marker && work.stream == StreamKind::Blocking &&
         rules.allows(Deviation::kStreamSyncSkipsWhatItsMarkersWaitFor);
}

const RuleInfo& rule_info(Rule rule) { return kRules.at(static_cast<std::size_t>(rule)); }

}  // namespace hazardlab::conformance
