#pragma once
// Runs an observation: a sweep of sizes (powers of two from the space's smallest), every stream
// of the space at each, about HAZARDLAB_TRIALS trials in all. What happened is reported per size;
// nothing is judged.
#include "hazardlab/result.hpp"
#include "judge/trial_plan.hpp"

namespace hazardlab {

VariantResult observe(const RunContext& ctx, const TrialPlan& plan);

}  // namespace hazardlab
