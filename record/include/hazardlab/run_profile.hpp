#pragma once
// Which cases a run is made of (HAZARDLAB_PROFILE, `hazardlab run --profile`), as a type: the run plan, the
// settings, the run record, the reports and the fleet compare this enum, and its words are spelled once, here
// (run_profile.cpp). The setting's declaration (settings/src/settings_table.cpp) lists the same words for
// `hazardlab settings` and the README; a self-test holds the two equal.
//
//   validation  every registered case and every measurement group (the default)
//   health      a node health check's short selection (harness/plan/profile.hpp)
//   soak        the verified copies only, for the soak's duration
#include <optional>
#include <string_view>

namespace hazardlab {

enum class RunProfile { Validation, Health, Soak };

inline constexpr RunProfile kRunProfiles[] = {RunProfile::Validation, RunProfile::Health, RunProfile::Soak};

std::string_view to_string(RunProfile profile) noexcept;
// The profile `name` spells; std::nullopt for a word that is no profile.
std::optional<RunProfile> run_profile_named(std::string_view name) noexcept;

}  // namespace hazardlab
