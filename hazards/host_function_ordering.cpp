// Not a hazard: a host function enqueued after a device-to-host copy runs after the copy has
// completed, so it may read the destination without any other synchronization.
#include <cstring>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

struct ReadJob {
  const std::byte* from;
  std::byte* to;
  std::size_t bytes;
};

// Runs on a CUDA-internal thread, in stream order; makes no CUDA calls.
void CUDART_CB read_destination(void* arg) {
  const auto* job = static_cast<const ReadJob*>(arg);
  std::memcpy(job->to, job->from, job->bytes);
}

TrialObservation read_in_host_function(Rig& rig, const TrialCase& c, const TrialSettings& s) {
  Stream stream(c.stream);
  const std::span<std::byte> destination = rig.host_region(c);
  std::byte* source = rig.device().data();
  enqueue_device_fill(source, c.bytes, c.pattern, PatternVersion::Original, stream.get());
  fill_pattern(destination, c.pattern, PatternVersion::Sentinel);
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  TrialObservation obs;
  ReadJob job{destination.data(), rig.snapshot().data(), c.bytes};
  {
    // The gate opens on a timer: the host function must wait for the copy, not for the host.
    HeldStream held(c.hold(s), stream.get(), FenceKind::HostFunction);
    obs.call_blocked = held.issue(
        [&] { HL_CUDA(cudaMemcpyAsync(destination.data(), source, c.bytes, cudaMemcpyDeviceToHost, stream.get())); });
    HL_CUDA(cudaLaunchHostFunc(stream.get(), &read_destination, &job));
    HL_CUDA(cudaStreamSynchronize(stream.get()));
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  obs.seen = take_census({rig.snapshot().data(), c.bytes}, c.pattern);
  obs.hazard_visible = !obs.seen.all_original();
  obs.data_correct = obs.seen.all_original();
  return obs;
}

Hazard host_function_ordering() {
  CaseSpace space;
  space.host_kinds = {HostMemoryKind::Pinned, HostMemoryKind::PinnedPortable, HostMemoryKind::Mapped};
  return Hazard{
      .id = "host-function-ordering",
      .title = "A host function enqueued after a device-to-host copy reads complete data (documented safe)",
      .rules = {{"CUDA C++ Programming Guide", "Host Functions (Callbacks)",
                 "Commands issued in a stream before a host function must complete before the function runs; "
                 "the function must not call CUDA itself."}},
      .requirements = {},
      .explanation =
          "cudaLaunchHostFunc puts a CPU function into a stream's queue. It runs on a driver thread once "
          "everything queued before it has completed, so a function enqueued after a device-to-host copy "
          "may read the copy's destination: this is how a pipeline consumes results without blocking its "
          "main thread. The rule variant holds the stream closed behind a timer, queues the copy and a host "
          "function that reads the destination, and checks that the function always sees the complete "
          "data. The function must not call the CUDA API (it would deadlock the stream).",
      .variants = {make_variant(VariantKind::Rule, "read-in-host-function",
                                "cudaMemcpyAsync to pinned memory, then cudaLaunchHostFunc reads the destination",
                                space, read_in_host_function)},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::host_function_ordering)
