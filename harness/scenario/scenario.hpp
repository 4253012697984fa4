#pragma once
// A scenario is a reusable trial shape: the steps of a race with the synchronization under test
// left open. A hazard picks the scenario and its fence: FenceKind::None gives the unsafe variant,
// any other fence a guard.
#include <functional>

#include "hold/fence.hpp"
#include "trial/trial.hpp"

namespace hazardlab {

using Scenario = std::function<TrialFn(FenceKind)>;

}  // namespace hazardlab
