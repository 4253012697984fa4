#include "settings_record.hpp"

#include <algorithm>
#include <cstdio>

#include "hazardlab/number_text.hpp"
#include "perf/host_lock.hpp"

namespace hazardlab {
namespace {}  // namespace

std::vector<RecordedSetting> settings_in_force(const Settings& s, const perf::Profile& profile,
                                               const perf::Thresholds& thresholds) {
  SettingsInForce values = s.in_force();
  // The measurements' own settings, read by harness/perf.
  values.push_back({&setting::kPerfProfile, profile.name});
  values.push_back({&setting::kPinnedBudgetMb, std::to_string(profile.pinned_budget >> 20)});
  values.push_back({&setting::kMinLinkFraction, number_text("%.2f", thresholds.min_link_fraction)});
  values.push_back({&setting::kMinOverlap, number_text("%.2f", thresholds.min_overlap)});
  values.push_back({&setting::kTimedTurns, std::string(perf::setting_word(perf::timed_turns_from_environment()))});
  std::stable_sort(values.begin(), values.end(), [](const SettingInForce& a, const SettingInForce& b) {
    return declared_position(a.setting->name) < declared_position(b.setting->name);
  });

  const SettingSource environment = SettingSource::from_environment();
  std::vector<RecordedSetting> recorded;
  for (const auto& [declaration, value] : values) {
    std::string note = s.chosen_by(*declaration);
    if (declaration == &setting::kFreshProcesses && !s.sanitizer.empty())
      note = "a sanitizer must see each case's process";
    recorded.push_back({std::string(declaration->name), value, environment.given(*declaration), note});
  }
  return recorded;
}

}  // namespace hazardlab
