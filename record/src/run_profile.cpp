#include "hazardlab/run_profile.hpp"

namespace hazardlab {

std::string_view to_string(RunProfile profile) noexcept {
  switch (profile) {
    case RunProfile::Validation:
      return "validation";
    case RunProfile::Health:
      return "health";
    case RunProfile::Soak:
      return "soak";
  }
  return "?";
}

std::optional<RunProfile> run_profile_named(std::string_view name) noexcept {
  for (const RunProfile p : kRunProfiles)
    if (to_string(p) == name) return p;
  return std::nullopt;
}

}  // namespace hazardlab
