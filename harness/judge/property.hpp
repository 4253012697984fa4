#pragma once
// Judges a property: HAZARDLAB_PROPERTY_CASES generated cases (trial/generate.hpp), each of
// which must give correct data. A failure shrinks to the smallest failing case, reported with the
// seed that replays it (HAZARDLAB_SEED). Guards and rules are both properties; they differ in
// what the judge does with the result (judge_variant.hpp).
#include "hazardlab/result.hpp"
#include "judge/blocking_profile.hpp"
#include "judge/context.hpp"
#include "trial/case_space.hpp"
#include "trial/trial.hpp"

namespace hazardlab {

struct PropertyVerdict {
  VariantResult result;      // outcome, trials, seed, minimal case; observations["blocking"]
  BlockingProfile blocking;  // how the calls under test behaved
};

PropertyVerdict check_property(const RunContext& ctx, const CaseSpace& space, const TrialFn& trial);

}  // namespace hazardlab
