// How the model lowers copies: cudaMemcpyAsync (rules 5, 6, 7) and cudaMemcpy (rule 8).
#include <stdexcept>

#include "conformance/model/graph_builder.hpp"

namespace hazardlab::conformance {

using Builder = HappensBefore::Builder;

namespace {

// A copy's ends and their kinds; a host-to-host copy is refused.
struct CopyEnds {
  BufferId dst, src;
  BufferKind dst_kind, src_kind;
};

CopyEnds copy_ends(const Program& program, const Command& c) {
  const CopyEnds e{c.writes.at(0), c.reads.at(0), program.buffer_kind(c.writes.at(0)),
                   program.buffer_kind(c.reads.at(0))};
  if (is_host_buffer(e.dst_kind) && is_host_buffer(e.src_kind))
    throw std::invalid_argument("host-to-host copies are not modelled");
  return e;
}

}  // namespace

// cudaMemcpyAsync, and cudaMemcpy when rule 8 is off (then it is an async copy on the legacy stream).
void Builder::lower_copy(CommandIndex index, const Command& c, StreamId stream) {
  const auto [dst, src, dst_kind, src_kind] = copy_ends(program_, c);
  // Rule 6: a pageable source is staged before the call returns. Without rule 5 a pinned source is taken
  // (wrongly) at the call too: the mutant that believes the copy snapshots its source.
  const bool source_read_at_call = src_kind == BufferKind::HostPageable ? rules_.has(Rule::kAsyncCopyPageableH2DStaged)
                                                                        : !rules_.has(Rule::kAsyncCopyPinnedOnStream);
  // Rule 7: the 12.x text promises no completion for device to pageable; without it, the archived "returns
  // only once the copy has completed". Without rule 5 a pinned destination is (wrongly) complete at return.
  const bool complete_at_return = dst_kind == BufferKind::HostPageable
                                      ? !rules_.has(Rule::kAsyncCopyPageableD2HNoHostGuarantee)
                                      : !rules_.has(Rule::kAsyncCopyPinnedOnStream);
  const bool host_source = is_host_buffer(src_kind) && source_read_at_call;
  const ActionId call = host_source ? host_call(index, c, {src}) : host_call(index, c);
  const ActionId work = stream_work(call, c, stream, host_source ? std::vector<BufferId>{} : c.reads, c.writes);
  if (is_host_buffer(dst_kind) && complete_at_return) host_return(work, c);
}

// Rule 8: cudaMemcpy, on the legacy stream, as the Runtime API's "Synchronous" list describes it.
void Builder::lower_sync_memcpy(CommandIndex index, const Command& c) {
  const auto [dst, src, dst_kind, src_kind] = copy_ends(program_, c);
  if (src_kind == BufferKind::HostPageable) {
    // "A stream sync is performed before the copy is initiated", the source is staged, and the call may return
    // before the DMA to device memory has completed. The stream is the legacy stream, whose work waits for
    // prior blocking-stream work (rule 2): so does the sync, as an H200 showed (the call waited for a gate
    // closed on a blocking stream). Non-blocking streams stay exempt.
    std::vector<ActionId> synced = stream_work_[kLegacyStream];
    const std::vector<ActionId> implicit = implicit_waits(kLegacyStream);
    synced.insert(synced.end(), implicit.begin(), implicit.end());
    const ActionId call = host_call(index, c, {src}, {}, std::move(synced));
    stream_work(call, c, kLegacyStream, {}, c.writes);
    return;
  }
  const ActionId call = host_call(index, c);
  const ActionId work = stream_work(call, c, kLegacyStream, c.reads, c.writes);
  // Pinned to device is synchronous; device to host "returns only once the copy has completed"; device to
  // device has "no host-side synchronization".
  if (is_host_buffer(src_kind) || is_host_buffer(dst_kind)) host_return(work, c);
}

}  // namespace hazardlab::conformance
