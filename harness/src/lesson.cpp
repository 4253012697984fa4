#include "hazardlab/lesson.hpp"

namespace hazardlab {

Scenario mutate_source_after_h2d(CopyCall call) {
  return [call](FenceKind fence) -> TrialFn {
    return [call, fence](TransferRig& rig, const TransferCase& c, const Settings& s) {
      return mutate_source_after_h2d(rig, c, fence, call, s);
    };
  };
}

Scenario read_destination_after_d2h(CopyCall call) {
  return [call](FenceKind fence) -> TrialFn {
    return [call, fence](TransferRig& rig, const TransferCase& c, const Settings& s) {
      return read_destination_after_d2h(rig, c, fence, call, s);
    };
  };
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
