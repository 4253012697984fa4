#pragma once
// Reading settings through their declarations (settings_table.hpp): a value is parsed by its
// declared type and checked against its declared range, so a setting's rules are written once and
// every reader (the harness, the performance measurements, the checker's injected library) refuses
// the same values with the same words. A profile (the sanitizer's, the health run's) is a layer of
// choices under the environment: where the environment is silent, the profile's value is read the
// same way, and the record says which profile chose it.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hazardlab/settings_table.hpp"

namespace hazardlab {

// A value a person gave that a setting does not allow; the message names the setting, the value
// and what is allowed.
class SettingsError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SettingSource {
 public:
  // The HAZARDLAB_* and HL_CHECK_* entries of "NAME=value" entries (the form of `environ`).
  explicit SettingSource(const std::vector<std::string>& entries);
  static SettingSource from_environment();

  // What the environment gives for `setting`, or the choosing profile's value; nullptr for neither.
  [[nodiscard]] const std::string* text(const SettingDeclaration& setting) const&;
  // The text lives in the source: a temporary's would dangle (SettingSource::from_environment().text(...)).
  const std::string* text(const SettingDeclaration& setting) const&& = delete;
  // The environment's own value, not a profile's.
  [[nodiscard]] bool given(const SettingDeclaration& setting) const;
  // A profile's value for `setting`, read where the environment is silent.
  void choose(const SettingDeclaration& setting, std::string value, std::string profile);
  // The profile whose value is read for `setting`; "" when the environment or the default decides.
  [[nodiscard]] std::string chosen_by(const SettingDeclaration& setting) const;

  // Typed reads: the value given (or chosen), parsed by the declared type and range, else `otherwise`.
  [[nodiscard]] bool flag(const SettingDeclaration& setting, bool otherwise) const;
  [[nodiscard]] std::optional<std::uint64_t> whole(
      const SettingDeclaration& setting) const;  // Count, Bytes, Millis, Seed
  [[nodiscard]] std::uint64_t whole(const SettingDeclaration& setting, std::uint64_t otherwise) const;
  [[nodiscard]] double fraction(const SettingDeclaration& setting, double otherwise) const;
  [[nodiscard]] std::string choice(const SettingDeclaration& setting, std::string otherwise) const;
  [[nodiscard]] std::vector<std::string> list(const SettingDeclaration& setting) const;  // empty when not given
  [[nodiscard]] std::chrono::seconds duration(const SettingDeclaration& setting, std::chrono::seconds otherwise) const;

  // Every HAZARDLAB_* and HL_CHECK_* entry of the environment, declared or not, by name.
  [[nodiscard]] const std::map<std::string, std::string>& entries() const& { return given_; }
  const std::map<std::string, std::string>& entries() const&& = delete;

 private:
  std::map<std::string, std::string> given_;
  std::map<std::string, std::pair<std::string, std::string>> chosen_;  // name -> (value, profile)
};

// Parses a flag: "1", "true", "yes", "on" / "0", "false", "no", "off" (any case); else a
// SettingsError naming `what` (a setting or a command-line option).
bool parse_flag(std::string_view what, const std::string& value);
// One of `setting`'s declared words (a Choice); else a SettingsError naming `what` and calling the
// words `kind` ("a run profile").
std::string choice_named(const SettingDeclaration& setting, std::string_view what, std::string_view kind,
                         const std::string& value);
// "10m", "90s", "2h", "1d" or a number of seconds, within `setting`'s declared range of seconds; else a
// SettingsError naming `what`.
std::chrono::seconds parse_duration_text(const SettingDeclaration& setting, std::string_view what,
                                         const std::string& text);
// Reads `setting` from `source` by its declared type and range, as its reader would, so that a value is judged
// where nobody reads it yet (`hazardlab settings`, and the checker's settings before the program runs); throws
// the SettingsError that reader would throw. A Path or Text is judged only as not empty.
void check_declared_value(const SettingSource& source, const SettingDeclaration& setting);

// Every setting `source` holds, judged as every command judges them before any work: a name of hazardlab's
// families that no one declared is a warning (returned, naming the nearest declared name), or an error under
// HAZARDLAB_STRICT=1; every declared one's value is read by its declaration, read later or not. Throws
// SettingsError naming the setting and its value.
std::vector<std::string> judge_given_settings(const SettingSource& source);
// A declared Choice's or List's words, in the declared order ("quick, full" -> quick, full).
std::vector<std::string> declared_words(const SettingDeclaration& setting);

}  // namespace hazardlab
