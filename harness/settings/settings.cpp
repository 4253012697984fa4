#include "settings/settings.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "hazardlab/environment.hpp"
#include "hazardlab/results_root.hpp"
#include "hazardlab/strict_number.hpp"

namespace hazardlab {
namespace {

constexpr std::string_view kPrefix = "HAZARDLAB_";

// The HAZARDLAB_* entries of an environment, by name. Other variables are not ours to judge.
class Environment {
 public:
  explicit Environment(const std::vector<std::string>& entries) {
    for (const std::string& e : entries) {
      const auto eq = e.find('=');
      if (eq == std::string::npos || e.compare(0, kPrefix.size(), kPrefix) != 0) continue;
      values_[e.substr(0, eq)] = e.substr(eq + 1);
    }
  }
  const std::string* find(std::string_view name) const {
    const auto it = values_.find(std::string(name));
    return it == values_.end() ? nullptr : &it->second;
  }
  const std::map<std::string, std::string>& all() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

std::uint64_t parse_unsigned(std::string_view name, const std::string& text, std::uint64_t min, std::uint64_t max) try {
  return parse_whole_number(text, min, max);
} catch (const NumberRefused& why) {
  throw SettingsError(refused_number_text(name, text, why));
}

// A whole number (or a duration in whole units) within the range its declaration gives.
template <typename T>
void read_unsigned(const Environment& env, std::string_view name, T& out) {
  const SettingDeclaration& declared = declared_setting(name);
  if (const std::string* v = env.find(name)) out = T(parse_unsigned(name, *v, declared.min, declared.max));
}

void read_flag(const Environment& env, std::string_view name, bool& out) {
  if (const std::string* v = env.find(name)) out = parse_flag(std::string(name), *v);
}

// quick (the default run's) or full; `full` is set true for full.
void read_profile(const Environment& env, std::string_view name, bool& full) {
  const std::string* v = env.find(name);
  if (!v) return;
  if (*v != "quick" && *v != "full") throw SettingsError(std::string(name) + "='" + *v + "': expected quick or full");
  full = *v == "full";
}

}  // namespace

bool parse_flag(const std::string& name, const std::string& value) {
  std::string v = value;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  throw SettingsError(name + "='" + value + "': expected 1/0, true/false, yes/no or on/off");
}

namespace {

// Under compute-sanitizer every launch and copy is intercepted and every kernel instrumented, so
// the default run would take about an hour. The sanitizer profile keeps every case and every
// kind of trial but fewer of them and smaller; a setting given in the environment still wins.
void apply_sanitizer_profile(const Environment& env, Settings& s) {
  const auto profile = [&](const char* name, auto& field, auto value) {
    if (env.find(name)) return;
    field = value;
    s.sanitizer_profile.emplace_back(name);
  };
  profile("HAZARDLAB_TRIALS", s.control_trials, kSanitizerProfile.control_trials);
  profile("HAZARDLAB_PROPERTY_CASES", s.property_cases, kSanitizerProfile.property_cases);
  profile("HAZARDLAB_MAX_BYTES", s.max_transfer_bytes, kSanitizerProfile.max_transfer_bytes);
  // The gate that needs no kernel, and more time before a call counts as blocking.
  if (!env.find("HAZARDLAB_GATES")) {
    s.gates = {GateKind::HostFunction};
    s.sanitizer_profile.emplace_back("HAZARDLAB_GATES");
  }
  profile("HAZARDLAB_CALL_LIMIT_MS", s.call_limit, kSanitizerProfile.call_limit);
  // The mutation check misuses the API on purpose; under a sanitizer that would be reported.
  profile("HAZARDLAB_MUTATION_CHECK", s.mutation_check, false);
}

// The health profile's choices, each only where the environment is silent, recorded as chosen.
void apply_health_profile(const Environment& env, Settings& s) {
  const auto profile = [&](const char* name, auto& field, auto value) {
    if (env.find(name)) return;
    field = value;
    s.run_profile_chosen.emplace_back(name);
  };
  profile("HAZARDLAB_TRIALS", s.control_trials, kHealthProfile.control_trials);
  profile("HAZARDLAB_PROPERTY_CASES", s.property_cases, kHealthProfile.property_cases);
  profile("HAZARDLAB_MAX_BYTES", s.max_transfer_bytes, kHealthProfile.max_transfer_bytes);
  profile("HAZARDLAB_MUTATION_CHECK", s.mutation_check, kHealthProfile.mutation_check);
  profile("HAZARDLAB_REQUIRE_GPU", s.require_gpu, true);
}

}  // namespace

Settings Settings::from_environment() { return from_entries(environment_entries()); }

Settings Settings::from_entries(const std::vector<std::string>& entries) {
  const Environment env(entries);
  Settings s;
  read_flag(env, "HAZARDLAB_STRICT", s.strict);
  for (const auto& [name, value] : env.all()) {
    if (!is_declared_setting(name)) {
      const std::string text = name + " is not a hazardlab setting (did you mean " + std::string(nearest_known_setting(name)) +
                               "?); `hazardlab settings` lists them";
      if (s.strict) throw SettingsError(text + "; HAZARDLAB_STRICT=1 makes this an error");
      s.warnings.push_back(text);
      continue;
    }
    // The folders, RESULTS_ROOT, REPORTS_DIR and RUN_DIR: " " is a slip, never a folder to make.
    const std::string why = name.ends_with("_ROOT") || name.ends_with("_DIR") ? folder_text_problem(value) : "";
    if (!value.empty() && !why.empty()) throw SettingsError(name + "='" + value + "': " + why);
    if (value.empty()) {
      throw SettingsError(name + " is set but empty: give it a value or unset it (" +
                          std::string(declared_setting(name).help) + ")");
    }
  }
  read_unsigned(env, "HAZARDLAB_TRIALS", s.control_trials);
  read_unsigned(env, "HAZARDLAB_PROPERTY_CASES", s.property_cases);
  read_unsigned(env, "HAZARDLAB_MAX_BYTES", s.max_transfer_bytes);
  read_unsigned(env, "HAZARDLAB_GATE_TIMEOUT_MS", s.gate_timeout);
  read_unsigned(env, "HAZARDLAB_CALL_LIMIT_MS", s.call_limit);
  read_unsigned(env, "HAZARDLAB_KEEP_RUNS", s.keep_runs);
  if (const std::string* v = env.find("HAZARDLAB_SEED")) s.seed = parse_unsigned("HAZARDLAB_SEED", *v, 0, UINT64_MAX);
  read_flag(env, "HAZARDLAB_REQUIRE_GPU", s.require_gpu);
  read_flag(env, "HAZARDLAB_SABOTAGE_GUARDS", s.sabotage_guards);
  read_flag(env, "HAZARDLAB_MUTATION_CHECK", s.mutation_check);
  read_flag(env, "HAZARDLAB_FRESH_PROCESSES", s.fresh_processes);
  read_profile(env, "HAZARDLAB_SWEEP_PROFILE", s.sweep_full);
  read_profile(env, "HAZARDLAB_CONFORMANCE_PROFILE", s.conformance_full);
  if (const std::string* v = env.find("HAZARDLAB_RUN_DIR")) s.run_dir = *v;
  if (const std::string* v = env.find("HAZARDLAB_HOST_NAME")) {
    // It becomes part of run ids and folder names.
    const bool plain = v->size() <= 64 && std::all_of(v->begin(), v->end(), [](unsigned char c) {
                         return std::isalnum(c) || c == '-' || c == '.' || c == '_';
                       });
    if (!plain)
      throw SettingsError("HAZARDLAB_HOST_NAME='" + *v + "': expected up to 64 letters, digits, '-', '.' or '_'");
  }
  if (const std::string* v = env.find("HAZARDLAB_PROFILE")) s.profile = run_profile_named("HAZARDLAB_PROFILE", *v);
  if (const std::string* v = env.find("HAZARDLAB_PROMETHEUS_DIR")) s.prometheus_dir = *v;
  if (const std::string* v = env.find("HAZARDLAB_SOAK_DURATION"))
    s.soak_duration = parse_duration_text("HAZARDLAB_SOAK_DURATION", *v);
  read_flag(env, "HAZARDLAB_SOAK_INJECT_FAULT", s.soak_inject_fault);
  if (const std::string* v = env.find("HAZARDLAB_RESULTS_ROOT")) s.results_root = *v;
  if (const std::string* v = env.find("HAZARDLAB_REPORTS_DIR")) s.reports_dir = *v;
  if (const std::string* v = env.find("HAZARDLAB_SANITIZE")) {
    if (std::find(std::begin(kSanitizerTools), std::end(kSanitizerTools), *v) == std::end(kSanitizerTools)) {
      throw SettingsError("HAZARDLAB_SANITIZE='" + *v +
                          "': expected a compute-sanitizer tool: memcheck, racecheck, initcheck or synccheck");
    }
    s.sanitizer = *v;
  }
  if (const std::string* v = env.find("HAZARDLAB_GATES")) {
    const std::string& list = *v;
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      const std::string name = list.substr(start, comma - start);
      try {
        s.gates.push_back(gate_kind_from_string(name));
      } catch (const std::invalid_argument&) {
        throw SettingsError("HAZARDLAB_GATES='" + list + "': '" + name + "' is not host-function or spin-kernel");
      }
      start = comma + 1;
    }
  }
  if (!s.sanitizer.empty()) apply_sanitizer_profile(env, s);
  if (s.profile == "health") apply_health_profile(env, s);
  if (s.call_limit >= s.gate_timeout) {
    throw SettingsError("HAZARDLAB_CALL_LIMIT_MS (" + std::to_string(s.call_limit.count()) +
                        ") must be shorter than HAZARDLAB_GATE_TIMEOUT_MS (" + std::to_string(s.gate_timeout.count()) +
                        ")");
  }
  return s;
}

}  // namespace hazardlab
