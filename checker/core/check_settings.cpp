#include "checker/core/check_settings.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>

#include "hazardlab/environment.hpp"
#include "hazardlab/setting_source.hpp"

namespace hazardlab::check {

std::optional<std::string> check_log_folder_from_environment() try {
  const SettingSource source = SettingSource::from_environment();  // the text below lives in it
  const std::string* folder = source.text(setting::kCheckLogFolder);
  return folder ? std::optional<std::string>(*folder) : std::nullopt;
} catch (const SettingsError&) {
  return std::nullopt;  // set but empty: not a folder to write into, so nothing is watched (and the launcher says so)
}

std::optional<std::string> process_rank_from_environment() {
  // The launchers' own variables, not hazardlab's settings: read as they are set, the most specific first.
  for (std::string_view name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const std::optional<std::string> value = environment_value_given(name);
    if (value && !value->empty() && value->size() <= 9 &&
        std::all_of(value->begin(), value->end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
      return value;
  }
  return std::nullopt;
}

bool every_occurrence_from_environment() try {
  return SettingSource::from_environment().flag(setting::kCheckEveryOccurrence, false);
} catch (const SettingsError&) {
  return false;
}

bool kernels_own_mapped_memory_from_environment() try {
  return SettingSource::from_environment().flag(setting::kCheckKernelsOwnMappedMemory, false);
} catch (const SettingsError&) {
  return false;
}

unsigned long sample_from_environment() try {
  return SettingSource::from_environment().whole(setting::kCheckSample, 0);
} catch (const SettingsError&) {
  return 0;
}

std::string_view to_string(ProtectionRequest request) noexcept {
  switch (request) {
    case ProtectionRequest::Keys: return "keys";
    case ProtectionRequest::RangeKeys: return "range-keys";
    case ProtectionRequest::Mprotect: return "mprotect";
    case ProtectionRequest::Auto: break;
  }
  return "auto";
}

std::optional<ProtectionRequest> protection_request_named(std::string_view name) noexcept {
  for (const ProtectionRequest r : kProtectionRequests)
    if (to_string(r) == name) return r;
  return std::nullopt;
}

ProtectionRequest protection_request_given(std::string_view option, const std::string& value) {
  if (const std::optional<ProtectionRequest> r = protection_request_named(value)) return *r;
  std::string words;
  const std::size_t n = std::size(kProtectionRequests);
  for (std::size_t i = 0; i < n; ++i)
    words += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + std::string(to_string(kProtectionRequests[i]));
  throw SettingsError(std::string(option) + "='" + value + "': expected a page protection: " + words);
}

ProtectionRequest protection_from_environment() try {
  const SettingSource source = SettingSource::from_environment();  // the text below lives in it
  const std::string* text = source.text(setting::kCheckProtection);
  return text ? protection_request_named(*text).value_or(ProtectionRequest::Auto) : ProtectionRequest::Auto;
} catch (const SettingsError&) {
  return ProtectionRequest::Auto;  // set but empty
}

CheckSettings check_settings_from_environment() {
  return CheckSettings{sample_from_environment(), every_occurrence_from_environment(),
                       kernels_own_mapped_memory_from_environment(), protection_from_environment()};
}

std::vector<std::string> refused_check_settings() {
  std::vector<std::string> refused;
  const auto check = [&](auto&& read) {
    try {
      read(SettingSource::from_environment());
    } catch (const SettingsError& e) {
      refused.push_back(e.what());
    }
  };
  // Every declared HL_CHECK_* setting by its declaration, and a name nobody declared (a slip such as
  // HL_CHECK_SAMPEL=8 would leave every copy watched without a word). The log folder is the launcher's to set.
  const SettingSource source = SettingSource::from_environment();
  for (const auto& [name, value] : source.entries()) {
    if (!name.starts_with("HL_CHECK_") || name == setting::kCheckLogFolder.name) continue;
    if (!is_declared_setting(name)) {
      refused.push_back(name + "='" + value + "': not a setting of the checker (did you mean " +
                        std::string(nearest_known_setting(name)) + "?); `hazardlab settings` lists them");
      continue;
    }
    check([&](const SettingSource& s) { check_declared_value(s, declared_setting(name)); });
  }
  return refused;
}

}  // namespace hazardlab::check
