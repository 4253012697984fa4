// Not a hazard: the host rewrites a pageable (malloc) source right after a host-to-device copy
// call returned. The runtime promises the bytes were already taken, so the GPU gets the old data.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

Hazard h2d_pageable_mutate() {
  CaseSpace async_space;
  async_space.host_kinds = {HostMemoryKind::Pageable};
  // cudaMemcpy always runs on the legacy default stream, so that is the stream to hold closed.
  CaseSpace sync_space = async_space;
  sync_space.streams = {StreamKind::Legacy};

  return Hazard{
      .id = "h2d-pageable-mutate",
      .title = "Pageable source rewritten right after a host-to-device copy call returned (documented safe)",
      .rules = {runtime_api_sync_behavior(
                    "From pageable host memory, cudaMemcpy returns once the buffer has been copied to staging "
                    "memory for DMA, and cudaMemcpyAsync may be synchronous: the driver may stage the data first."),
                {"CUDA C++ Programming Guide", "Concurrent Execution between Host and Device",
                 "Host-to-device copies of 64 KB or less are asynchronous to the host; the source has been read "
                 "by the time the call returns."},
                {"PyTorch tutorial: A guide on good usage of non_blocking and pin_memory()", "Other copy directions",
                 "Mutating a pageable tensor after tensor.to('cuda', non_blocking=True) is always safe."}},
      .requirements = {},
      .explanation =
          "The copy engine can only read page-locked memory, so a copy from malloc'd memory goes through a "
          "pinned staging buffer that the driver owns. The call returns once the data sits in that buffer (or "
          "once the copy is done), so the caller's buffer is free for reuse at once, whatever the stream is "
          "doing. The variants hold the stream closed and rewrite the source as soon as the call returns. The "
          "call may instead wait for the stream: then a watchdog opens the gate and the wait is recorded, "
          "never a hang. Either way the GPU must receive the original bytes.",
      .variants = {make_variant(VariantKind::Rule, "async-call-then-mutate",
                                "cudaMemcpyAsync from pageable memory, source rewritten as soon as it returns",
                                async_space, mutate_source_after_h2d(CopyCall::MemcpyAsync)(FenceKind::None)),
                   make_variant(VariantKind::Rule, "sync-call-then-mutate",
                                "cudaMemcpy from pageable memory, source rewritten as soon as it returns", sync_space,
                                mutate_source_after_h2d(CopyCall::Memcpy)(FenceKind::None))},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::h2d_pageable_mutate)
