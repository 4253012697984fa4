#include "judge/observation_sweep.hpp"

#include <algorithm>

#include "judge/blocking_profile.hpp"

namespace hazardlab {

VariantResult observe(const RunContext& ctx, const TrialPlan& plan) {
  const CaseSpace& space = plan.space;
  Rig rig(plan.largest_bytes, ctx.device);
  BlockingProfile blocking;
  VariantResult r;
  int stale = 0;
  int index = 0;
  int sizes = 0;
  for (std::size_t bytes = space.min_bytes; bytes <= rig.max_bytes(); bytes *= 2) ++sizes;
  const int per_size = static_cast<int>(space.streams.size());
  const int repeats = std::max(1, (ctx.settings.control_trials + sizes * per_size - 1) / (sizes * per_size));
  for (std::size_t bytes = space.min_bytes; bytes <= rig.max_bytes(); bytes *= 2) {
    int size_blocked = 0, size_stale = 0, size_trials = 0;
    for (int repeat = 0; repeat < repeats * per_size; ++repeat) {
      TrialCase c = plan.planned(index++, rig.max_bytes());
      c.bytes = bytes;
      c.stream = space.streams[static_cast<std::size_t>(repeat % per_size)];
      const TrialObservation obs = plan.trial(rig, c, ctx.settings);
      if (obs.gate_timed_out) {
        r.outcome = Outcome::Inconclusive;
        r.reason = "a gate timed out: " + c.describe();
        return r;
      }
      blocking.add(bytes, obs.call_blocked, obs.hazard_visible);
      ++r.trials;
      ++size_trials;
      size_blocked += obs.call_blocked;
      size_stale += obs.hazard_visible;
    }
    stale += size_stale;
    r.observations.per_size.push_back({bytes, size_trials, size_blocked, size_stale});
  }
  r.outcome = Outcome::Observed;
  r.reproduced = stale;
  r.observations.blocking = blocking.tally();
  r.reason = blocking.summary() + ".";
  return r;
}

}  // namespace hazardlab
