#include "hazard/define.hpp"

namespace hazardlab {

Variant make_variant(VariantKind kind, std::string id, std::string title, CaseSpace space, TrialFn trial) {
  return Variant{std::move(id), kind, std::move(title), std::move(space), std::move(trial), nullptr};
}

Variant measurement(std::string id, std::string title, Measurement measure) {
  return Variant{std::move(id), VariantKind::Observation, std::move(title), {}, nullptr, std::move(measure)};
}

Variant labelled(Variant variant, std::string label) {
  variant.labels.push_back(std::move(label));
  return variant;
}

Variant race_window(RaceWindowSpec spec) {
  Variant v = measurement("race-window",
                          "with no gate, only a sleep queued ahead: how often the hazard shows, by delay, size and "
                          "what the host does",
                          [spec = std::move(spec)](const DeviceFingerprint& device, const Settings& settings) {
                            return measure_race_window(spec, device, settings);
                          });
  v.labels = {"sweep"};
  return v;
}

Variant guard(FenceKind fence, const CaseSpace& space, const Scenario& scenario) {
  std::string title;
  switch (fence) {
    case FenceKind::StreamSynchronize:
      title = "cudaStreamSynchronize(stream) before the host touches the buffer";
      break;
    case FenceKind::EventSynchronize:
      title = "cudaEventRecord right after the copy, cudaEventSynchronize before the host touches the buffer";
      break;
    case FenceKind::EventQuery:
      title = "cudaEventRecord right after the copy, then poll cudaEventQuery until it returns cudaSuccess";
      break;
    case FenceKind::HostFunction:
      title = "cudaLaunchHostFunc right after the copy signals the host thread, which waits for it";
      break;
    case FenceKind::None:
      title = "no synchronization (this is the unsafe pattern, not a guard)";
      break;
  }
  return make_variant(VariantKind::Guard, std::string(to_string(fence)), std::move(title), space, scenario(fence));
}

Citation runtime_api_sync_behavior(std::string says) {
  return {"CUDA Runtime API reference", "API synchronization behavior", std::move(says)};
}

}  // namespace hazardlab
