#include "hazardlab/environment.hpp"

#include <cstdlib>

extern char** environ;

namespace hazardlab {

std::optional<std::string> environment_value(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::optional<std::string> environment_value_given(std::string_view name) {
  std::optional<std::string> value = environment_value(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::vector<std::string> environment_entries() {
  std::vector<std::string> entries;
  for (char** e = environ; e && *e; ++e) entries.emplace_back(*e);
  return entries;
}

}  // namespace hazardlab
