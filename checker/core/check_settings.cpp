#include "checker/core/check_settings.hpp"

#include <cstdlib>
#include <string_view>

#include "hazardlab/environment.hpp"

namespace hazardlab::check {

std::optional<std::string> check_log_folder_from_environment() {
  return environment_value_given(kLogFolder.name);
}

bool every_occurrence_from_environment() {
  const std::optional<std::string> value = environment_value_given(kEveryOccurrence.name);
  return value && *value == "1";
}

unsigned long sample_from_environment() {
  const std::optional<std::string> value = environment_value_given(kSample.name);
  if (!value) return 0;
  char* end = nullptr;
  const unsigned long n = std::strtoul(value->c_str(), &end, 10);
  return *end == '\0' ? n : 0;
}

}  // namespace hazardlab::check
