#pragma once
// Every setting in force for a run, as the run record keeps it: the value each case and
// measurement will use, and whether the environment set it.
#include <vector>

#include "hazardlab/run_record.hpp"
#include "perf/checks.hpp"
#include "settings/settings.hpp"

namespace hazardlab {

std::vector<RecordedSetting> settings_in_force(const Settings& settings, const perf::Profile& profile,
                                               const perf::Thresholds& thresholds);

}  // namespace hazardlab
