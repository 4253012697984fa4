#include "scenario/host_to_device.hpp"

#include <atomic>
#include <cstring>

#include "cuda/check.hpp"
#include "hold/held_stream.hpp"
#include "trial/device_patterns.hpp"

namespace hazardlab {

TrialObservation mutate_source_after_h2d(Rig& rig, const TrialCase& c, FenceKind fence, CopyCall call,
                                         const TrialSettings& settings) {
  rig.check_fits(c);
  Stream stream(c.stream);
  const std::span<std::byte> source = rig.host_region(c);
  std::byte* destination = rig.device().data();

  // The host's data is A; the device buffer starts as the sentinel C.
  fill_pattern(source, c.pattern, PatternVersion::Original);
  enqueue_device_fill(destination, c.bytes, c.pattern, PatternVersion::Sentinel, stream.get());
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  TrialObservation obs;
  {
    HeldStream held(c.hold(settings), stream.get(), fence);
    obs.call_blocked = held.issue(
        [&] { issue_copy(call, destination, source.data(), c.bytes, cudaMemcpyHostToDevice, stream.get()); });
    settings.guard().fence(fence, stream.get());
    // The damage: the host reuses its source buffer for the next batch (B).
    fill_pattern(source, c.pattern, PatternVersion::Mutated);
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }

  // What reached the device: A is correct, B means the copy read the host's later writes.
  obs.seen = rig.census_of_device(destination, c);
  obs.hazard_visible = obs.seen.mutated > 0;
  obs.data_correct = obs.seen.all_original();
  return obs;
}

Scenario mutate_source_after_h2d(CopyCall call) {
  return transfer_scenario(static_cast<TransferTrial>(&mutate_source_after_h2d), call);
}

}  // namespace hazardlab
