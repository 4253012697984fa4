#include "checker/core/check_settings.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>

#include "hazardlab/environment.hpp"

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

namespace {

std::optional<std::string> flag_text(bool on) { return on ? std::optional<std::string>("1") : std::nullopt; }

// Each setting the launcher hands the injected library: its declaration, how it is read into CheckSettings (a
// SettingsError on a value the declaration refuses), and how it is spelled for the library (nothing: its default).
struct HandedSetting {
  const SettingDeclaration& declaration;
  void (*read)(const SettingSource& source, CheckSettings& settings);
  std::optional<std::string> (*text)(const CheckSettings& settings);
};

const HandedSetting kHandedSettings[] = {
    {setting::kCheckSample,
     [](const SettingSource& s, CheckSettings& c) { c.sample = s.whole(setting::kCheckSample, 0); },
     [](const CheckSettings& c) { return c.sample > 0 ? std::optional(std::to_string(c.sample)) : std::nullopt; }},
    {setting::kCheckEveryOccurrence,
     [](const SettingSource& s, CheckSettings& c) { c.every_occurrence = s.flag(setting::kCheckEveryOccurrence, false); },
     [](const CheckSettings& c) { return flag_text(c.every_occurrence); }},
    {setting::kCheckKernelsOwnMappedMemory,
     [](const SettingSource& s, CheckSettings& c) {
       c.kernels_own_mapped_memory = s.flag(setting::kCheckKernelsOwnMappedMemory, false);
     },
     [](const CheckSettings& c) { return flag_text(c.kernels_own_mapped_memory); }},
    {setting::kCheckManagedMemory,
     [](const SettingSource& s, CheckSettings& c) { c.managed_memory = s.flag(setting::kCheckManagedMemory, false); },
     [](const CheckSettings& c) { return flag_text(c.managed_memory); }},
    {setting::kCheckGraphNodes,
     [](const SettingSource& s, CheckSettings& c) { c.graph_nodes = s.flag(setting::kCheckGraphNodes, false); },
     [](const CheckSettings& c) { return flag_text(c.graph_nodes); }},
    {setting::kCheckPtxFootprints,
     [](const SettingSource& s, CheckSettings& c) { c.ptx_footprints = s.flag(setting::kCheckPtxFootprints, false); },
     [](const CheckSettings& c) { return flag_text(c.ptx_footprints); }},
    {setting::kCheckProtection,
     [](const SettingSource& s, CheckSettings& c) {
       const std::string word = s.choice(setting::kCheckProtection, std::string(to_string(ProtectionRequest::Auto)));
       c.protection = protection_request_given(setting::kCheckProtection.name, word);
     },
     [](const CheckSettings& c) {
       return c.protection != ProtectionRequest::Auto ? std::optional(std::string(to_string(c.protection)))
                                                      : std::nullopt;
     }},
};

}  // namespace

CheckSettingsRead read_check_settings(const SettingSource& source) {
  CheckSettingsRead read;
  for (const HandedSetting& handed : kHandedSettings) {
    try {
      handed.read(source, read.settings);
    } catch (const SettingsError& e) {
      read.refused.emplace_back(e.what());
      if (&handed.declaration == &setting::kCheckProtection) read.protection_refused = e.what();
    }
  }
  return read;
}

std::vector<std::pair<std::string_view, std::optional<std::string>>> handed_over(const CheckSettings& settings) {
  std::vector<std::pair<std::string_view, std::optional<std::string>>> variables;
  for (const HandedSetting& handed : kHandedSettings) variables.emplace_back(handed.declaration.name, handed.text(settings));
  return variables;
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
