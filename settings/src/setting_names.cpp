// A declared setting found by its name, and the nearest declared name to a mistyped one, for the warning or
// error that names it.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hazardlab/settings_table.hpp"

namespace hazardlab {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string_view nearest_known_setting(std::string_view name) {
  // Names earlier versions read, and what took their place.
  if (name == "HAZARDLAB_RESULTS_DIR") return "HAZARDLAB_RESULTS_ROOT";
  std::string_view best;
  std::size_t best_distance = SIZE_MAX;
  // A HAZARDLAB_* slip is never taken for one of the checker's HL_CHECK_* names, nor the other way round.
  std::string_view family = "HAZARDLAB_";
  for (std::string_view f : {"HL_CHECK_", "HL_FOOTPRINT_", "HL_PROFILE_"})
    if (name.starts_with(f)) family = f;
  for (const SettingDeclaration& s : declared_settings()) {
    if (!s.name.starts_with(family)) continue;
    if (s.name == setting::kRunDir.name) continue;  // set by ctest, never by a person
    const std::size_t d = edit_distance(name, s.name);
    if (d < best_distance) best = s.name, best_distance = d;
  }
  return best;
}

std::size_t declared_position(std::string_view name) {
  const std::span<const SettingDeclaration> table = declared_settings();
  return static_cast<std::size_t>(
      std::find_if(table.begin(), table.end(), [&](const SettingDeclaration& d) { return d.name == name; }) -
      table.begin());
}

bool is_declared_setting(std::string_view name) { return declared_position(name) < declared_settings().size(); }

const SettingDeclaration& declared_setting(std::string_view name) {
  const std::size_t at = declared_position(name);
  if (at == declared_settings().size()) throw std::logic_error("no setting " + std::string(name) + " is declared");
  return declared_settings()[at];
}

}  // namespace hazardlab
