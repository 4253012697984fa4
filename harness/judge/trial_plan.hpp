#pragma once
// One variant's trials, planned once by judge_variant and handed to each judge step (the positive
// control, the property and its mutation check, the observation sweep), so that every step runs
// the same cases: the gates this GPU and the settings allow, and the largest transfer.
#include <cstddef>
#include <vector>

#include "judge/context.hpp"
#include "trial/case_space.hpp"
#include "trial/trial.hpp"

namespace hazardlab {

struct TrialPlan {
  const CaseSpace& space;
  const TrialFn& trial;
  std::vector<GateKind> gates;  // usable_gates(space, device, settings)
  std::size_t largest_bytes;    // space.largest(settings): the rig is at most this large

  static TrialPlan of(const RunContext& ctx, const CaseSpace& space, const TrialFn& trial) {
    return {space, trial, usable_gates(space, ctx.device, ctx.settings), space.largest(ctx.settings)};
  }
  // Planned trial `i` on a rig of `max_bytes` (positive controls and observations).
  TrialCase planned(int i, std::size_t max_bytes) const { return planned_case(space, gates, i, max_bytes); }
};

}  // namespace hazardlab
