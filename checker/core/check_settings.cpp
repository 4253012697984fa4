#include "checker/core/check_settings.hpp"

#include <cstdlib>
#include <string_view>

namespace hazardlab::check {

std::optional<std::string> check_log_folder_from_environment() {
  const char* value = std::getenv(std::string(kLogFolder.name).c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

bool every_occurrence_from_environment() {
  const char* value = std::getenv(std::string(kEveryOccurrence.name).c_str());
  return value != nullptr && std::string_view(value) == "1";
}

unsigned long sample_from_environment() {
  const char* value = std::getenv(std::string(kSample.name).c_str());
  if (value == nullptr || *value == '\0') return 0;
  char* end = nullptr;
  const unsigned long n = std::strtoul(value, &end, 10);
  return *end == '\0' ? n : 0;
}

}  // namespace hazardlab::check
