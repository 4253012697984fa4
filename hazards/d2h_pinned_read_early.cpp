// Hazard: the host reads the pinned destination of cudaMemcpyAsync (device to host) before
// synchronizing. It reads whatever the buffer held before: stale or partly written data.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// Why the tutorial's demo rarely fails although its read races every time (the race-window report).
constexpr const char* kD2hDemoNote =
    "Here every byte is compared, so any byte the copy had not yet written shows. The tutorial compares only the "
    "mean of 10^8 doubles within a tolerance, and its first values are the smallest (1, 2, 3, ...), so the "
    "host must read thousands of values ahead of the copy before the mean moves enough to fail; PyTorch's "
    "pinned-memory cache is also likely to hand each iteration a buffer that still holds an earlier, identical "
    "result, which a stale read cannot tell apart (not measured here).";

Hazard d2h_pinned_read_early() {
  // Write-combined memory is left out: reading it from the host is the slow path it warns against.
  CaseSpace space;
  space.host_kinds = {HostMemoryKind::Pinned, HostMemoryKind::PinnedPortable, HostMemoryKind::Mapped};
  const Scenario scenario = read_destination_after_d2h(CopyCall::MemcpyAsync);

  return Hazard{
      .id = "d2h-pinned-read-early",
      .title = "Pinned destination of an async device-to-host copy read before synchronizing",
      .rules = {runtime_api_sync_behavior(
                    "Between device memory and pinned host memory, cudaMemcpyAsync is fully asynchronous: when it "
                    "returns, the destination may not have been written yet."),
                {"PyTorch tutorial: A guide on good usage of non_blocking and pin_memory()", "Other copy directions",
                 "tensor.to('cpu', non_blocking=True) copies into pinned memory and gives no guarantee that the "
                 "data is there until the stream is synchronized."}},
      .requirements = {},
      .explanation =
          "A device-to-host cudaMemcpyAsync into page-locked memory returns as soon as the copy is queued. "
          "Until the stream reaches it, the destination still holds its old contents, and while the copy "
          "runs it holds a mix. PyTorch's cuda_tensor.to('cpu', non_blocking=True) is this pattern: it "
          "allocates a pinned destination, so reading the result at once reads garbage. The unsafe variant "
          "holds the stream closed and reads the destination right after the call: it always sees the "
          "sentinel it was filled with. Each guard waits until the copy has completed before reading.",
      .variants = {make_variant(VariantKind::Control, "unsafe-read-after-call",
                                "read the pinned destination right after cudaMemcpyAsync returns", space,
                                scenario(FenceKind::None)),
                   guard(FenceKind::StreamSynchronize, space, scenario),
                   guard(FenceKind::EventSynchronize, space, scenario), guard(FenceKind::EventQuery, space, scenario),
                   guard(FenceKind::HostFunction, space, scenario),
                   // The tutorial's tensor: 100 x 999999 doubles.
                   race_window(
                       {RaceShape::ReadPinnedDestinationEarly,
                        {HostAction::ReadOneByte, HostAction::ReadAll},
                        TutorialDemoSpec{"cpu_tensor = tensor.to('cpu', non_blocking=True); cpu_tensor.mean()",
                                         std::size_t{100} * 999'999 * sizeof(double), HostAction::ReadAll, 0,
                                         "2 of 100 with PyTorch on an H100, 4 of 100 on an H200", kD2hDemoNote}})},
      .pytorch = R"py(y = x_gpu.to("cpu", non_blocking=True)   # y is pinned; the copy is only queued
total = y.sum()                          # may read y before the copy landed
# fix: torch.cuda.current_stream().synchronize() before reading y)py",
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::d2h_pinned_read_early)
