#include "settings_record.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include "hazardlab/environment.hpp"

namespace hazardlab {
namespace {

std::string fraction(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", v);
  return text;
}

std::string flag(bool v) { return v ? "1" : "0"; }

}  // namespace

std::vector<RecordedSetting> settings_in_force(const Settings& s, const perf::Profile& profile,
                                               const perf::Thresholds& thresholds) {
  std::string gates;
  for (GateKind g : s.gates) gates += (gates.empty() ? "" : ",") + std::string(to_string(g));
  const std::vector<std::pair<std::string, std::string>> values = {
      {"HAZARDLAB_REQUIRE_GPU", flag(s.require_gpu)},
      {"HAZARDLAB_TRIALS", std::to_string(s.control_trials)},
      {"HAZARDLAB_PROPERTY_CASES", std::to_string(s.property_cases)},
      {"HAZARDLAB_SEED", s.seed ? std::to_string(*s.seed) : "random"},
      {"HAZARDLAB_MAX_BYTES", std::to_string(s.max_transfer_bytes)},
      {"HAZARDLAB_GATE_TIMEOUT_MS", std::to_string(s.gate_timeout.count())},
      {"HAZARDLAB_CALL_LIMIT_MS", std::to_string(s.call_limit.count())},
      {"HAZARDLAB_GATES", gates.empty() ? "host-function,spin-kernel" : gates},
      {"HAZARDLAB_SABOTAGE_GUARDS", flag(s.sabotage_guards)},
      {"HAZARDLAB_MUTATION_CHECK", flag(s.mutation_check)},
      {"HAZARDLAB_PERF_PROFILE", profile.name},
      {"HAZARDLAB_SWEEP_PROFILE", s.sweep_full ? "full" : "quick"},
      {"HAZARDLAB_CONFORMANCE_PROFILE", s.conformance_full ? "full" : "quick"},
      {"HAZARDLAB_PINNED_BUDGET_MB", std::to_string(profile.pinned_budget >> 20)},
      {"HAZARDLAB_MIN_LINK_FRACTION", fraction(thresholds.min_link_fraction)},
      {"HAZARDLAB_MIN_OVERLAP", fraction(thresholds.min_overlap)},
      {"HAZARDLAB_SANITIZE", s.sanitizer.empty() ? "none" : s.sanitizer},
      {"HAZARDLAB_KEEP_RUNS", std::to_string(s.keep_runs)},
      {"HAZARDLAB_STRICT", flag(s.strict)},
      {"HAZARDLAB_FRESH_PROCESSES", flag(s.fresh_processes || !s.sanitizer.empty())},
      {"HAZARDLAB_PROFILE", s.profile},
      {"HAZARDLAB_SOAK_DURATION", std::to_string(s.soak_duration.count()) + "s"},
      {"HAZARDLAB_SOAK_INJECT_FAULT", flag(s.soak_inject_fault)},
  };
  std::vector<RecordedSetting> recorded;
  for (const auto& [name, value] : values) {
    const bool given = environment_value(name).has_value();
    const bool profiled =
        std::find(s.sanitizer_profile.begin(), s.sanitizer_profile.end(), name) != s.sanitizer_profile.end();
    std::string note = profiled ? "sanitizer profile" : "";
    if (std::find(s.run_profile_chosen.begin(), s.run_profile_chosen.end(), name) != s.run_profile_chosen.end())
      note = s.profile + " profile";
    if (name == "HAZARDLAB_FRESH_PROCESSES" && !s.sanitizer.empty()) note = "a sanitizer must see each case's process";
    recorded.push_back({name, value, given, note});
  }
  return recorded;
}

}  // namespace hazardlab
