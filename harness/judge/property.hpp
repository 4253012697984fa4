#pragma once
// Judges a property: HAZARDLAB_PROPERTY_CASES generated cases (trial/generate.hpp), each of
// which must give correct data. A failure shrinks to the smallest failing case, reported with the
// seed that replays it (HAZARDLAB_SEED). Guards and rules are both properties; they differ in
// what the judge does with the result (judge_variant.hpp).
#include "hazardlab/result.hpp"
#include "judge/blocking_profile.hpp"
#include "judge/trial_plan.hpp"
#include "trial/rig.hpp"

namespace hazardlab {

struct PropertyVerdict {
  VariantResult result;      // outcome, trials, seed, minimal case; observations.blocking
  BlockingProfile blocking;  // how the calls under test behaved
};

// How far a failing property is followed: shrunk to the smallest failing case (a guard or rule
// that failed: the case a person debugs), or stopped at the first failure (a mutation check,
// which only has to see the missing synchronization caught).
enum class OnFailure { Shrink, StopAtFirst };

PropertyVerdict check_property(const RunContext& ctx, const TrialPlan& plan, OnFailure on_failure = OnFailure::Shrink);
// The same, on buffers the caller already holds (a guard and its mutation check share them).
PropertyVerdict check_property(const RunContext& ctx, const TrialPlan& plan, Rig& rig, OnFailure on_failure);

}  // namespace hazardlab
