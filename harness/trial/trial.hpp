#pragma once
// A trial: one case run once on a rig, returning what it saw. Every variant of every hazard is a
// trial function over a case space; the judges (judge/) decide how often to run it and what
// its observations mean.
#include <functional>

#include "settings/settings.hpp"
#include "trial/case.hpp"
#include "trial/observation.hpp"
#include "trial/rig.hpp"

namespace hazardlab {

using TrialFn = std::function<TrialObservation(Rig&, const TrialCase&, const TrialSettings&)>;

}  // namespace hazardlab
