// Hazard: the host rewrites a pinned source buffer after cudaMemcpyAsync (host to device)
// returned, but before the copy ran. The GPU receives the new bytes.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// Why the tutorial's demo reproduces on one GPU and not on another (the race-window report).
constexpr const char* kH2dDemoNote =
    "So the demo is a race decided by microseconds: the host work between the call and the rewrite (here the "
    "_sleep launch; in PyTorch also its own overhead) against how soon the copy engine starts: a rewrite that "
    "starts first shows; one that starts after the copy engine began reading shows only if it overtakes it. "
    "Those microseconds differ from machine to machine and run to run, which is why the same code reproduced in 94 of "
    "100 trials on one GPU and 28 on "
    "another.";

Hazard h2d_pinned_mutate() {
  // Every page-locked kind behaves the same: the copy engine reads the host bytes directly.
  CaseSpace space;
  space.host_kinds = {HostMemoryKind::Pinned, HostMemoryKind::PinnedPortable, HostMemoryKind::Mapped,
                      HostMemoryKind::WriteCombined};
  const Scenario scenario = mutate_source_after_h2d(CopyCall::MemcpyAsync);

  return Hazard{
      .id = "h2d-pinned-mutate",
      .title = "Pinned source rewritten before an async host-to-device copy ran",
      .rules = {runtime_api_sync_behavior(
                    "Between device memory and pinned host memory, cudaMemcpyAsync is fully asynchronous: it may "
                    "return before the copy has started."),
                {"CUDA C++ Programming Guide", "Asynchronous Concurrent Execution",
                 "Copies to and from page-locked host memory are performed by the copy engines while the host "
                 "thread carries on."},
                {"PyTorch tutorial: A guide on good usage of non_blocking and pin_memory()", "Other copy directions",
                 "Mutating a pinned tensor after tensor.to('cuda', non_blocking=True) may corrupt what the GPU "
                 "receives."}},
      .requirements = {},
      .explanation =
          "cudaMemcpyAsync from page-locked memory only queues the copy. The copy engine reads the host bytes "
          "when the stream reaches the copy, which can be long after the call returned. A host that refills "
          "the buffer in the meantime (the next batch, say) sends the new bytes, or a mix of old and new, to "
          "the GPU. The unsafe variant holds the stream closed, rewrites the source, then lets the copy run: "
          "the device always receives the rewritten data. Each guard waits until the copy has completed "
          "before the host writes again; any of them makes the reuse safe.",
      .variants = {make_variant(VariantKind::Control, "unsafe-mutate-after-call",
                                "rewrite the pinned source right after cudaMemcpyAsync returns", space,
                                scenario(FenceKind::None)),
                   guard(FenceKind::StreamSynchronize, space, scenario),
                   guard(FenceKind::EventSynchronize, space, scenario), guard(FenceKind::EventQuery, space, scenario),
                   guard(FenceKind::HostFunction, space, scenario),
                   race_window(
                       {RaceShape::MutatePinnedSourceAfterH2D,
                        {HostAction::RewriteOneByte, HostAction::RewriteAll},
                        TutorialDemoSpec{"cpu_tensor.to('cuda', non_blocking=True); torch.cuda._sleep(100000000); "
                                         "cpu_tensor.zero_()",
                                         std::size_t{4} << 20, HostAction::RewriteAll, 100'000'000,
                                         "94 of 100 with PyTorch on an H100, 28 of 100 on an H200", kH2dDemoNote}})},
      .pytorch = R"py(x = torch.ones(n, pin_memory=True)
y = x.to("cuda", non_blocking=True)   # only queued
x.fill_(2)                            # y may receive 2s, or a mix
# fix: torch.cuda.current_stream().synchronize() (or an event's synchronize()) before x.fill_(2))py",
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::h2d_pinned_mutate)
