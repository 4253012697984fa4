// Device-to-host copies into pageable memory: cudaMemcpy is documented to return only with the
// data in place; cudaMemcpyAsync "might be synchronous". This hazard checks the first and
// reports what this GPU and driver do for the second.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

Hazard d2h_pageable_read() {
  CaseSpace sync_space;
  sync_space.host_kinds = {HostMemoryKind::Pageable};
  sync_space.streams = {StreamKind::Legacy};  // cudaMemcpy's stream: the one to hold closed
  CaseSpace async_space = sync_space;
  async_space.streams = CaseSpace{}.streams;

  return Hazard{
      .id = "d2h-pageable-read",
      .title = "Pageable destination of a device-to-host copy read right after the call returned",
      .rules = {runtime_api_sync_behavior(
                    "For transfers from device memory to pageable host memory, cudaMemcpy returns only once the "
                    "copy has completed."),
                runtime_api_sync_behavior(
                    "For transfers between device memory and pageable host memory, cudaMemcpyAsync might be "
                    "synchronous. Releases up to CUDA 11 promised it returns only once the copy has completed; "
                    "later releases no longer say so.")},
      .requirements = {},
      .explanation =
          "The copy engine cannot write pageable memory directly, so the driver copies into a pinned staging "
          "buffer and from there into the caller's buffer. For cudaMemcpy the documentation promises the "
          "data is in place when the call returns: the rule variant holds the legacy stream closed, lets a "
          "watchdog open it when the call waits, and checks that the host reads complete data right after "
          "the return. For cudaMemcpyAsync the documentation only says the call might be synchronous, so "
          "the observation reports, size by size, whether this driver returned before the copy ran and "
          "whether the host then read stale data. Code that needs the data must synchronize either way.",
      .variants = {make_variant(VariantKind::Rule, "sync-call-then-read",
                                "cudaMemcpy into pageable memory, destination read as soon as it returns", sync_space,
                                read_destination_after_d2h(CopyCall::Memcpy)(FenceKind::None)),
                   make_variant(VariantKind::Observation, "async-call-then-read",
                                "cudaMemcpyAsync into pageable memory, destination read as soon as it returns",
                                async_space, read_destination_after_d2h(CopyCall::MemcpyAsync)(FenceKind::None))},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::d2h_pageable_read)
