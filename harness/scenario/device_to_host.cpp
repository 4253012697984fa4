#include "scenario/device_to_host.hpp"

#include <atomic>
#include <cstring>

#include "cuda/check.hpp"
#include "hold/held_stream.hpp"
#include "trial/device_patterns.hpp"

namespace hazardlab {

TrialObservation read_destination_after_d2h(Rig& rig, const TrialCase& c, FenceKind fence, CopyCall call,
                                            const TrialSettings& settings) {
  rig.check_fits(c);
  Stream stream(c.stream);
  const std::span<std::byte> destination = rig.host_region(c);
  std::byte* source = rig.device().data();

  // The device's data is A; the host destination starts as the sentinel C.
  enqueue_device_fill(source, c.bytes, c.pattern, PatternVersion::Original, stream.get());
  fill_pattern(destination, c.pattern, PatternVersion::Sentinel);
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  TrialObservation obs;
  {
    HeldStream held(c.hold(settings), stream.get(), fence);
    obs.call_blocked = held.issue(
        [&] { issue_copy(call, destination.data(), source, c.bytes, cudaMemcpyDeviceToHost, stream.get()); });
    settings.guard().fence(fence, stream.get());
    // The damage: the host uses the result (here: takes a copy of it).
    std::memcpy(rig.snapshot().data(), destination.data(), c.bytes);
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }

  obs.seen = take_census({rig.snapshot().data(), c.bytes}, c.pattern);
  obs.settled = take_census(destination, c.pattern);
  obs.hazard_visible = !obs.seen.all_original();
  obs.data_correct = obs.seen.all_original() && obs.settled->all_original();
  return obs;
}

Scenario read_destination_after_d2h(CopyCall call) {
  return transfer_scenario(static_cast<TransferTrial>(&read_destination_after_d2h), call);
}

}  // namespace hazardlab
