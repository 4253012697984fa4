#pragma once
// Judges a positive control: a fixed plan of gated trials (HAZARDLAB_TRIALS, 100 by default)
// in which every trial must show the hazard. A trial that could not hold the copy back (the call
// blocked, the gate timed out) proves nothing and counts as inconclusive, never as reproduced.
#include "hazardlab/result.hpp"
#include "judge/trial_plan.hpp"

namespace hazardlab {

VariantResult check_positive_control(const RunContext& ctx, const TrialPlan& plan);

}  // namespace hazardlab
