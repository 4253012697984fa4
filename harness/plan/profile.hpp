#pragma once
// Which cases a run profile is made of (HAZARDLAB_PROFILE, `hazardlab run --profile`):
//
//   validation  every registered case and every measurement group (the default)
//   health      what a scheduler's node health check should see within its time limit: every
//               positive control, one guard per hazard (its first; a hazard without a guard, its
//               first rule), the link check (bandwidth, health-sized) and the verified copies of
//               every host memory kind and direction (integrity); no observation, which never fails
//   soak        the verified copies only, for --duration (soak)
//
// The run plan (run_plan.hpp) asks here, for ctest's registration, session-start and `hazardlab
// run` alike, so the run record's registered cases, and so completeness, are the profile's.
#include <vector>

#include "hazardlab/perf_store.hpp"
#include "hazardlab/run_profile.hpp"
#include "hazard/registry.hpp"

namespace hazardlab {

struct ProfileCase {
  const Hazard* hazard;
  const Variant* variant;
};

std::vector<ProfileCase> profile_cases(RunProfile profile);
std::vector<MeasurementGroup> profile_perf_parts(RunProfile profile);

}  // namespace hazardlab
