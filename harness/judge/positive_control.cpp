#include "judge/positive_control.hpp"

#include <algorithm>
#include <sstream>

namespace hazardlab {
namespace {

// Large enough for every planned size; the rig is smaller when the space or the settings say so.
constexpr std::size_t kControlRigBytes = std::size_t{4} << 20;

}  // namespace

VariantResult check_positive_control(const RunContext& ctx, const TrialPlan& plan) {
  Rig rig(std::min(plan.largest_bytes, std::max(kControlRigBytes, plan.space.min_bytes)), ctx.device);
  VariantResult r;
  std::string first_blocked, first_missed;
  for (int i = 0; i < ctx.settings.control_trials; ++i) {
    const TrialCase c = plan.planned(i, rig.max_bytes());
    const TrialObservation obs = plan.trial(rig, c, ctx.settings);
    ++r.trials;
    GateTally& tally = r.observations.by_gate[std::string(to_string(c.gate))];
    ++tally.trials;
    if (obs.call_blocked || obs.gate_timed_out || !obs.undecided.empty()) {
      ++r.inconclusive;
      if (first_blocked.empty()) first_blocked = c.describe() + ": " + obs.describe();
    } else if (obs.hazard_visible) {
      ++r.reproduced;
      ++tally.reproduced;
    } else if (first_missed.empty()) {
      first_missed = c.describe() + ": " + obs.describe();
      r.minimal_case = c;
    }
  }
  std::ostringstream why;
  if (r.reproduced == r.trials) {
    r.outcome = Outcome::Reproduced;
  } else if (r.reproduced + r.inconclusive == r.trials) {
    r.outcome = Outcome::Inconclusive;
    why << r.inconclusive << " of " << r.trials
        << " trials could not hold the copy back (the call blocked while the gate was closed, or the gate timed "
           "out), so they prove nothing; first: "
        << first_blocked;
  } else {
    r.outcome = Outcome::NotReproduced;
    why << "the hazard showed in only " << r.reproduced << " of " << r.trials
        << " gated trials: the suite cannot rely on seeing it; first trial without it: " << first_missed;
  }
  r.reason = why.str();
  return r;
}

}  // namespace hazardlab
