// Hazard: cudaMemset on device memory returns before the memory is set; so does
// cudaMemsetAsync. A reader on a stream that is not ordered after it sees the old contents.
// On pinned host memory, cudaMemset is documented to be synchronous.
#include <cstring>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

enum class Setter { Memset, MemsetAsync };

// A memset writes one value: the pattern is the constant family.
TrialCase constant_case(TrialCase c) {
  c.pattern.family = PatternFamily::Constant;
  return c;
}

// Sets device memory, then reads it on a non-blocking stream after the fence under test.
TrialObservation read_after_memset(Rig& rig, const TrialCase& base, Setter setter, FenceKind fence, const TrialSettings& s) {
  const TrialCase c = constant_case(base);
  const int value = pattern_original(c.pattern, 0);
  Stream stream(setter == Setter::Memset ? StreamKind::Legacy : c.stream);
  Stream reader(StreamKind::NonBlocking);
  std::byte* data = rig.device().data();
  enqueue_device_fill(data, c.bytes, c.pattern, PatternVersion::Sentinel, stream.get());
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  TrialObservation obs;
  {
    HeldStream held(c.hold(s), stream.get(), fence);
    obs.call_blocked = held.issue([&] {
      if (setter == Setter::Memset)
        HL_CUDA(cudaMemset(data, value, c.bytes));
      else
        HL_CUDA(cudaMemsetAsync(data, value, c.bytes, stream.get()));
    });
    s.guard().fence(fence, stream.get());
    // The damage: read the buffer on a stream that nothing orders after the memset.
    HL_CUDA(cudaMemcpyAsync(rig.readback().data(), data, c.bytes, cudaMemcpyDeviceToHost, reader.get()));
    HL_CUDA(cudaStreamSynchronize(reader.get()));
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  obs.seen = take_census({rig.readback().data(), c.bytes}, c.pattern);
  obs.hazard_visible = obs.seen.sentinel > 0;
  obs.data_correct = obs.seen.all_original();
  return obs;
}

// cudaMemset on pinned host memory, then the host reads it as soon as the call returns.
TrialObservation memset_pinned_host(Rig& rig, const TrialCase& base, const TrialSettings& s) {
  const TrialCase c = constant_case(base);
  const std::span<std::byte> target = rig.host_region(HostMemoryKind::Pinned, c);
  fill_pattern(target, c.pattern, PatternVersion::Sentinel);
  Stream legacy(StreamKind::Legacy);
  TrialObservation obs;
  {
    HeldStream held(c.hold(s), legacy.get(), FenceKind::None);
    obs.call_blocked = held.issue([&] { HL_CUDA(cudaMemset(target.data(), pattern_original(c.pattern, 0), c.bytes)); });
    std::memcpy(rig.snapshot().data(), target.data(), c.bytes);
    obs.gate_timed_out = held.release_and_drain(legacy.get());
  }
  obs.detail = obs.call_blocked ? "cudaMemset waited for the held legacy stream"
                                : "cudaMemset returned while the legacy stream was held";
  obs.seen = take_census({rig.snapshot().data(), c.bytes}, c.pattern);
  obs.hazard_visible = !obs.seen.all_original();
  obs.data_correct = obs.seen.all_original();
  return obs;
}

Hazard memset_semantics() {
  CaseSpace legacy;
  legacy.streams = {StreamKind::Legacy};
  CaseSpace any;

  const auto memset_then = [](Setter setter, FenceKind fence) -> TrialFn {
    return [=](Rig& rig, const TrialCase& c, const TrialSettings& s) { return read_after_memset(rig, c, setter, fence, s); };
  };
  return Hazard{
      .id = "memset-semantics",
      .title = "cudaMemset on device memory returns before the memory is set",
      .rules = {runtime_api_sync_behavior(
          "The cudaMemset functions are asynchronous with respect to the host except when the "
          "target is pinned host memory; the Async versions are always asynchronous.")},
      .requirements = {},
      .explanation =
          "cudaMemset has no stream argument and is easy to read as a blocking call, but on device memory "
          "it only queues the write on the legacy default stream and returns. Anything that is not ordered "
          "after that stream (the host through a pinned buffer, a copy or kernel on a non-blocking stream) "
          "can still see the old contents. The positive controls hold the stream closed, set the memory, "
          "and read it on a non-blocking stream: they read the old bytes every time. Synchronizing the "
          "setting stream before reading fixes it. The exception is pinned host memory, which the "
          "documentation says cudaMemset writes before it returns; the rule variant checks that with the "
          "legacy stream held closed.",
      .variants = {make_variant(VariantKind::Control, "unsafe-read-after-memset",
                                "cudaMemset on device memory, then read on a non-blocking stream", legacy,
                                memset_then(Setter::Memset, FenceKind::None)),
                   make_variant(VariantKind::Control, "unsafe-read-after-memset-async",
                                "cudaMemsetAsync on device memory, then read on a non-blocking stream", any,
                                memset_then(Setter::MemsetAsync, FenceKind::None)),
                   make_variant(VariantKind::Guard, "stream-synchronize",
                                "cudaStreamSynchronize on the memset's stream before reading", any,
                                memset_then(Setter::MemsetAsync, FenceKind::StreamSynchronize)),
                   make_variant(VariantKind::Rule, "pinned-host-target-is-synchronous",
                                "cudaMemset on pinned host memory, read by the host as soon as it returns", legacy,
                                memset_pinned_host)},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::memset_semantics)
