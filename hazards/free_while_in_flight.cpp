// Observation: freeing the memory of a copy that has not run yet. The documentation is uneven
// here (cudaFree "may" synchronize, cudaFreeHost says nothing), so each case records what the
// driver did: did the free wait for the pending copy, and did the copy still see valid memory?
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// cudaFreeHost on the pinned source of a copy held behind a gate; with `synchronize_first`, only
// after cudaStreamSynchronize (the gate then opens on a timer).
TrialObservation free_host_source(Rig& rig, const TrialCase& c, bool synchronize_first, const TrialSettings& s) {
  Stream stream(c.stream);
  std::byte* destination = rig.device().data();
  void* raw = nullptr;
  HL_CUDA(cudaMallocHost(&raw, c.bytes));
  auto* source = static_cast<std::byte*>(raw);
  fill_pattern({source, c.bytes}, c.pattern, PatternVersion::Original);
  enqueue_device_fill(destination, c.bytes, c.pattern, PatternVersion::Sentinel, stream.get());
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  TrialObservation obs;
  {
    const FenceKind fence = synchronize_first ? FenceKind::StreamSynchronize : FenceKind::None;
    HeldStream held(c.hold(s), stream.get(), fence);
    HL_CUDA(cudaMemcpyAsync(destination, source, c.bytes, cudaMemcpyHostToDevice, stream.get()));
    Fence(fence, stream.get(), s.fence_timeout()).wait();  // the rule's own wait, not a guard: never switched off
    obs.call_blocked = held.issue([&] { HL_CUDA(cudaFreeHost(source)); });
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  obs.seen = rig.census_of_device(destination, c);
  obs.hazard_visible = !synchronize_first && !obs.call_blocked;  // released under a pending copy
  obs.data_correct = obs.seen.all_original();
  return obs;
}

// cudaFree on the device destination of a copy held behind a gate.
TrialObservation free_device_destination(Rig& rig, const TrialCase& c, const TrialSettings& s) {
  Stream stream(c.stream);
  const std::span<std::byte> source = rig.host_region(HostMemoryKind::Pinned, c);
  fill_pattern(source, c.pattern, PatternVersion::Original);
  void* raw = nullptr;
  HL_CUDA(cudaMalloc(&raw, c.bytes));
  TrialObservation obs;
  {
    HeldStream held(c.hold(s), stream.get(), FenceKind::None);
    HL_CUDA(cudaMemcpyAsync(raw, source.data(), c.bytes, cudaMemcpyHostToDevice, stream.get()));
    obs.call_blocked = held.issue([&] { HL_CUDA(cudaFree(raw)); });
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  HL_CUDA(cudaDeviceSynchronize());  // a copy into freed memory would surface here as an error
  obs.hazard_visible = !obs.call_blocked;
  obs.data_correct = obs.call_blocked;
  return obs;
}

Hazard free_while_in_flight() {
  CaseSpace space;
  space.min_bytes = 4096;
  space.max_bytes = std::size_t{4} << 20;  // each trial allocates and frees its own buffer
  space.streams = {StreamKind::NonBlocking};
  return Hazard{
      .id = "free-while-in-flight",
      .title = "Freeing the source or destination of a copy that has not run yet",
      .rules = {{"CUDA Runtime API reference", "cudaFree",
                 "cudaFree may synchronize implicitly with the device; cudaFreeAsync never does."},
                {"CUDA Runtime API reference", "cudaFreeHost",
                 "Frees page-locked memory; the reference says nothing about copies still pending."}},
      .requirements = {},
      .explanation =
          "Freeing memory that a queued copy will still read or write is a bug whatever the driver does, and "
          "the documentation does not say what it does: cudaFree may synchronize, cudaFreeHost is silent. "
          "These observations hold a copy behind a gate and free its memory, each in its own process so a "
          "fault cannot spread. They report whether the free waited for the pending copy (then the copy "
          "still ran on valid memory) or returned at once (then the copy touched freed memory). Correct code "
          "synchronizes, or uses cudaFreeAsync on the copy's stream, before freeing.",
      .variants = {make_variant(VariantKind::Observation, "free-host-pending-source",
                                "cudaFreeHost on the pinned source of a held copy", space,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return free_host_source(rig, c, false, s);
                                }),
                   make_variant(VariantKind::Observation, "free-device-pending-destination",
                                "cudaFree on the device destination of a held copy", space, free_device_destination),
                   make_variant(VariantKind::Rule, "free-host-after-synchronize",
                                "cudaStreamSynchronize, then cudaFreeHost: the copy completed on valid memory", space,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return free_host_source(rig, c, true, s);
                                })},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::free_while_in_flight)
