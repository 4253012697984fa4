#include "hazardlab/setting_source.hpp"

#include <algorithm>
#include <cctype>

#include "hazardlab/environment.hpp"
#include "hazardlab/settings_table.hpp"
#include "hazardlab/strict_number.hpp"

namespace hazardlab {
namespace {

// The families whose every name is judged (a misspelt one too): the suite's, the checker's and the measuring
// tools' (HL_FOOTPRINT_*, HL_PROFILE_*).
bool is_ours(std::string_view name) {
  return name.starts_with("HAZARDLAB_") || name.starts_with("HL_CHECK_") || name.starts_with("HL_FOOTPRINT_") ||
         name.starts_with("HL_PROFILE_") || is_declared_setting(name);
}

std::string quoted(std::string_view what, std::string_view value) {
  return std::string(what) + "='" + std::string(value) + "'";
}

// "a, b or c": how an error lists what is allowed.
std::string alternatives(const std::vector<std::string>& words) {
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i)
    text += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return text;
}

}  // namespace

std::vector<std::string> declared_words(const SettingDeclaration& setting) {
  std::vector<std::string> words;
  std::string_view range = setting.range;
  while (!range.empty()) {
    const std::size_t comma = std::min(range.find(','), range.size());
    std::string_view word = range.substr(0, comma);
    while (word.starts_with(' ')) word.remove_prefix(1);
    if (!word.empty()) words.emplace_back(word);
    range.remove_prefix(std::min(comma + 1, range.size()));
  }
  return words;
}

bool parse_flag(std::string_view what, const std::string& value) {
  std::string v = value;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  throw SettingsError(quoted(what, value) + ": expected 1/0, true/false, yes/no or on/off");
}

std::string choice_named(const SettingDeclaration& setting, std::string_view what, std::string_view kind,
                         const std::string& value) {
  const std::vector<std::string> words = declared_words(setting);
  if (std::find(words.begin(), words.end(), value) != words.end()) return value;
  throw SettingsError(quoted(what, value) + ": expected " + (kind.empty() ? "" : std::string(kind) + ": ") +
                      alternatives(words));
}

std::chrono::seconds parse_duration_text(const SettingDeclaration& setting, std::string_view what,
                                         const std::string& text) {
  const std::string allowed = ": expected a duration from 1s to 7d such as 90s, 10m, 2h or a number of seconds";
  const std::size_t digits = std::min(text.find_first_not_of("0123456789"), text.size());
  const std::string unit = text.substr(digits);
  const std::uint64_t scale = unit.empty() || unit == "s" ? 1
                              : unit == "m"               ? 60
                              : unit == "h"               ? 3600
                              : unit == "d"               ? 86400
                                                          : 0;
  if (digits == 0 || scale == 0) throw SettingsError(quoted(what, text) + allowed);
  try {
    const std::uint64_t count = parse_whole_number(text.substr(0, digits), 1, setting.max / scale);
    if (count * scale < setting.min) throw SettingsError(quoted(what, text) + allowed);
    return std::chrono::seconds(count * scale);
  } catch (const NumberRefused&) {
    throw SettingsError(quoted(what, text) + allowed);
  }
}

SettingSource::SettingSource(const std::vector<std::string>& entries) {
  for (const std::string& e : entries) {
    const std::size_t eq = e.find('=');
    if (eq != std::string::npos && is_ours(std::string_view(e).substr(0, eq)))
      given_[e.substr(0, eq)] = e.substr(eq + 1);
  }
}

SettingSource SettingSource::from_environment() { return SettingSource(environment_entries()); }

const std::string* SettingSource::text(const SettingDeclaration& setting) const& {
  const std::string name(setting.name);
  if (const auto it = given_.find(name); it != given_.end()) {
    // An empty value is a slip (a script's unset variable), never "the default" in disguise.
    if (it->second.empty())
      throw SettingsError(name + " is set but empty: give it a value or unset it (" + std::string(setting.help) + ")");
    return &it->second;
  }
  const auto chosen = chosen_.find(name);
  return chosen == chosen_.end() ? nullptr : &chosen->second.first;
}

bool SettingSource::given(const SettingDeclaration& setting) const {
  return given_.count(std::string(setting.name)) > 0;
}

void SettingSource::choose(const SettingDeclaration& setting, std::string value, std::string profile) {
  chosen_[std::string(setting.name)] = {std::move(value), std::move(profile)};
}

std::string SettingSource::chosen_by(const SettingDeclaration& setting) const {
  if (given(setting)) return "";
  const auto it = chosen_.find(std::string(setting.name));
  return it == chosen_.end() ? "" : it->second.second;
}

bool SettingSource::flag(const SettingDeclaration& setting, bool otherwise) const {
  const std::string* v = text(setting);
  return v ? parse_flag(setting.name, *v) : otherwise;
}

std::optional<std::uint64_t> SettingSource::whole(const SettingDeclaration& setting) const {
  const std::string* v = text(setting);
  if (!v) return std::nullopt;
  try {
    return parse_whole_number(*v, setting.min, setting.max);
  } catch (const NumberRefused& why) {
    throw SettingsError(refused_number_text(setting.name, *v, why));
  }
}

std::uint64_t SettingSource::whole(const SettingDeclaration& setting, std::uint64_t otherwise) const {
  return whole(setting).value_or(otherwise);
}

double SettingSource::fraction(const SettingDeclaration& setting, double otherwise) const {
  const std::string* v = text(setting);
  if (!v) return otherwise;
  try {
    return parse_decimal_number(*v, 0.0, 1.0);
  } catch (const NumberRefused& why) {
    throw SettingsError(refused_number_text(setting.name, *v, why) + " (a fraction)");
  }
}

std::string SettingSource::choice(const SettingDeclaration& setting, std::string otherwise) const {
  const std::string* v = text(setting);
  return v ? choice_named(setting, setting.name, "", *v) : otherwise;
}

std::vector<std::string> SettingSource::list(const SettingDeclaration& setting) const {
  const std::string* v = text(setting);
  if (!v) return {};
  const std::vector<std::string> allowed = declared_words(setting);
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start <= v->size()) {
    const std::size_t comma = std::min(v->find(',', start), v->size());
    const std::string word = v->substr(start, comma - start);
    // The default's own name ("both") is how the table says "unset": never a word of the list itself.
    const std::string unset_gives = word == setting.default_text ? std::string("; '") + word + "' is what leaving " +
                                                                       std::string(setting.name) + " unset gives: "
                                                                       "unset it, or list the words"
                                                                 : "";
    if (std::find(allowed.begin(), allowed.end(), word) == allowed.end())
      throw SettingsError(quoted(setting.name, *v) + ": '" + word + "' is not " + alternatives(allowed) + unset_gives);
    // A word given twice is a slip (of another word, or of a paste): never silently taken as once.
    if (std::find(words.begin(), words.end(), word) != words.end())
      throw SettingsError(quoted(setting.name, *v) + ": '" + word + "' is given twice; give each word once");
    words.push_back(word);
    start = comma + 1;
  }
  return words;
}

std::chrono::seconds SettingSource::duration(const SettingDeclaration& setting, std::chrono::seconds otherwise) const {
  const std::string* v = text(setting);
  return v ? parse_duration_text(setting, setting.name, *v) : otherwise;
}

void check_declared_value(const SettingSource& source, const SettingDeclaration& setting) {
  switch (setting.type) {
    case SettingType::Flag:
      (void)source.flag(setting, false);
      break;
    case SettingType::Count:
    case SettingType::Bytes:
    case SettingType::Millis:
    case SettingType::Seed:
      (void)source.whole(setting);
      break;
    case SettingType::Choice:
      (void)source.choice(setting, "");
      break;
    case SettingType::List:
      (void)source.list(setting);
      break;
    case SettingType::Fraction:
      (void)source.fraction(setting, 0);
      break;
    case SettingType::Duration:
      (void)source.duration(setting, std::chrono::seconds(0));
      break;
    case SettingType::Path:
    case SettingType::Text:
      (void)source.text(setting);
      break;
  }
}

std::vector<std::string> judge_given_settings(const SettingSource& source) {
  const bool strict = source.flag(setting::kStrict, false);
  std::vector<std::string> warnings;
  for (const auto& [name, value] : source.entries()) {
    if (!is_declared_setting(name)) {
      const std::string text = name + " is not a hazardlab setting (did you mean " +
                               std::string(nearest_known_setting(name)) + "?); `hazardlab settings` lists them";
      if (strict) throw SettingsError(text + "; " + std::string(setting::kStrict.name) + "=1 makes this an error");
      warnings.push_back(text);
      continue;
    }
    check_declared_value(source, declared_setting(name));
  }
  return warnings;
}

}  // namespace hazardlab
