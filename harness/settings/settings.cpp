#include "settings/settings.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "hazardlab/environment.hpp"
#include "hazardlab/results_root.hpp"

namespace hazardlab {
namespace {

using namespace setting;

// A profile: what it chooses where the environment is silent. Each value is read through the
// setting's declaration like one the environment gave, and the record says the profile chose it.
struct ProfileChoice {
  const SettingDeclaration& setting;
  std::string_view value;
};

// Under compute-sanitizer every launch and copy is intercepted and every kernel instrumented, so
// the default run would take about an hour. The sanitizer profile keeps every case and every kind
// of trial but fewer of them and smaller: the gate that needs no kernel, more time before a call
// counts as blocking, and no mutation check (it misuses the API on purpose, which a sanitizer
// would report).
const ProfileChoice kSanitizerProfile[] = {{kTrials, "20"},           {kPropertyCases, "20"}, {kMaxBytes, "16777216"},
                                           {kGates, "host-function"}, {kCallLimitMs, "1000"}, {kMutationCheck, "0"}};

// The health profile: every control and one guard per hazard, with fewer and smaller trials, to fit a
// node's health interval (about 6 s on one GPU, 14 to 15 s on four, about 27 s planned for eight:
// docs/node-health.md); no mutation check (the guard is one of several seen each
// interval; the full run proves it); and no GPU is a failure, since a GPU node whose GPUs are gone
// must be drained.
const ProfileChoice kHealthProfile[] = {
    {kTrials, "20"}, {kPropertyCases, "20"}, {kMaxBytes, "16777216"}, {kMutationCheck, "0"}, {kRequireGpu, "1"}};

// The host lock is a file that every run of the host opens and never deletes. Anything else at
// that path (a folder, a device, a socket) would leave the cases unlocked without a word, so it is
// refused here, before anything runs. "" when the path can be the lock.
std::string host_lock_problem(const std::string& lock) {
  namespace fs = std::filesystem;
  for (const std::string& file : {lock, lock + ".intent"}) {
    std::error_code ec;
    const fs::file_status st = fs::status(file, ec);
    if (fs::exists(st) && !fs::is_regular_file(st)) return file + " exists and is not a regular file";
  }
  const fs::path parent = fs::path(lock).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec)) return "its folder " + parent.string() + " does not exist";
  return "";
}

template <std::size_t N>
void choose(SettingSource& source, const ProfileChoice (&profile)[N], const std::string& name) {
  for (const ProfileChoice& c : profile) source.choose(c.setting, std::string(c.value), name);
}

std::string flag_text(bool v) { return v ? "1" : "0"; }

}  // namespace

SoakFault soak_fault_named(const std::string& word) {
  if (word == "1") return SoakFault::PinnedDeviceToHost;
  if (word == "peer") return SoakFault::Peer;
  return SoakFault::None;  // "0": the choice was checked against the declaration's words
}

std::string_view setting_word(SoakFault fault) {
  switch (fault) {
    case SoakFault::PinnedDeviceToHost:
      return "1";
    case SoakFault::Peer:
      return "peer";
    case SoakFault::None:
      break;
  }
  return "0";
}

RunProfile run_profile_of(const SettingSource& source) {
  // The declaration's words are the enum's (a self-test holds them equal), so a word it allows names one.
  const std::string word = source.choice(kProfile, std::string(to_string(RunProfile::Validation)));
  return run_profile_named(word).value_or(RunProfile::Validation);
}

TrialSettings TrialSettings::read(const SettingSource& source) {
  TrialSettings t;
  t.gate_timeout = std::chrono::milliseconds(source.whole(kGateTimeoutMs, t.gate_timeout.count()));
  t.call_limit = std::chrono::milliseconds(source.whole(kCallLimitMs, t.call_limit.count()));
  t.sabotage_guards = source.flag(kSabotageGuards, t.sabotage_guards);
  t.under_sanitizer = source.text(kSanitize) != nullptr;
  if (t.call_limit >= t.gate_timeout) {
    throw SettingsError(std::string(kCallLimitMs.name) + " (" + std::to_string(t.call_limit.count()) +
                        ") must be shorter than " + std::string(kGateTimeoutMs.name) + " (" +
                        std::to_string(t.gate_timeout.count()) + ")");
  }
  return t;
}

void TrialSettings::record(SettingsInForce& out) const {
  out.push_back({&kGateTimeoutMs, std::to_string(gate_timeout.count())});
  out.push_back({&kCallLimitMs, std::to_string(call_limit.count())});
  out.push_back({&kSabotageGuards, flag_text(sabotage_guards)});
}

JudgeSettings JudgeSettings::read(const SettingSource& source) {
  JudgeSettings j;
  j.control_trials = static_cast<int>(source.whole(kTrials, j.control_trials));
  j.property_cases = static_cast<int>(source.whole(kPropertyCases, j.property_cases));
  j.seed = source.whole(kSeed);
  j.max_transfer_bytes = source.whole(kMaxBytes, j.max_transfer_bytes);
  j.mutation_check = source.flag(kMutationCheck, j.mutation_check);
  for (const std::string& word : source.list(kGates)) j.gates.push_back(gate_kind_from_string(word));
  return j;
}

void JudgeSettings::record(SettingsInForce& out) const {
  std::string gate_words;
  for (GateKind g : gates) gate_words += (gate_words.empty() ? "" : ",") + std::string(to_string(g));
  out.push_back({&kTrials, std::to_string(control_trials)});
  out.push_back({&kPropertyCases, std::to_string(property_cases)});
  out.push_back({&kSeed, seed ? std::to_string(*seed) : "random"});
  out.push_back({&kMaxBytes, std::to_string(max_transfer_bytes)});
  out.push_back({&kGates, gate_words.empty() ? "host-function,spin-kernel" : gate_words});
  out.push_back({&kMutationCheck, flag_text(mutation_check)});
}

RunSettings RunSettings::read(const SettingSource& source) {
  RunSettings r;
  r.profile = run_profile_of(source);
  if (const std::string* v = source.text(kRunDir)) r.run_dir = *v;
  r.require_gpu = source.flag(kRequireGpu, r.require_gpu);
  r.fresh_processes = source.flag(kFreshProcesses, r.fresh_processes);
  r.sanitizer = source.choice(kSanitize, "");
  r.sweep_full = source.choice(kSweepProfile, "quick") == "full";
  r.conformance_full = source.choice(kConformanceProfile, "quick") == "full";
  r.soak_duration = source.duration(kSoakDuration, r.soak_duration);
  r.soak_inject_fault = soak_fault_named(source.choice(kSoakInjectFault, "0"));
  return r;
}

void RunSettings::record(SettingsInForce& out) const {
  out.push_back({&kRequireGpu, flag_text(require_gpu)});
  out.push_back({&kSweepProfile, sweep_full ? "full" : "quick"});
  out.push_back({&kConformanceProfile, conformance_full ? "full" : "quick"});
  out.push_back({&kSanitize, sanitizer.empty() ? "none" : sanitizer});
  // A sanitizer must see each case's process, so it runs every case in a fresh one.
  out.push_back({&kFreshProcesses, flag_text(fresh_processes || !sanitizer.empty())});
  out.push_back({&kProfile, std::string(to_string(profile))});
  out.push_back({&kSoakDuration, std::to_string(soak_duration.count()) + "s"});
  out.push_back({&kSoakInjectFault, std::string(setting_word(soak_inject_fault))});
}

StorageSettings StorageSettings::read(const SettingSource& source) {
  StorageSettings s;
  if (const std::string* v = source.text(kResultsRoot)) s.results_root = *v;
  if (const std::string* v = source.text(kReportsDir)) s.reports_dir = *v;
  s.keep_runs = source.whole(kKeepRuns, s.keep_runs);
  if (const std::string* v = source.text(kPrometheusDir)) s.prometheus_dir = *v;
  return s;
}

void StorageSettings::record(SettingsInForce& out) const {
  // The folders are this machine's and not recorded; how many runs are kept is.
  out.push_back({&kKeepRuns, std::to_string(keep_runs)});
}

SettingsInForce Settings::in_force() const {
  SettingsInForce out;
  TrialSettings::record(out);
  JudgeSettings::record(out);
  RunSettings::record(out);
  StorageSettings::record(out);
  out.push_back({&kStrict, flag_text(strict)});
  return out;
}

std::string Settings::chosen_by(const SettingDeclaration& setting) const {
  for (const auto& [name, chosen_by] : chosen_by_profile)
    if (name == setting.name) return chosen_by;
  return "";
}

Settings Settings::from_environment(const std::vector<CommandLineSetting>& command_line) {
  std::vector<std::string> entries = environment_entries();
  for (const CommandLineSetting& given : command_line) entries.push_back(given.entry());  // the later entry wins
  return from_entries(entries);
}

Settings Settings::from_entries(const std::vector<std::string>& entries) {
  SettingSource source(entries);
  Settings s;
  s.strict = source.flag(kStrict, false);
  // The checker's HL_CHECK_* too: a run's cases may run under the checker, and `hazardlab settings` judges
  // every declared setting the same way.
  s.warnings = judge_given_settings(source);
  for (const auto& [name, value] : source.entries()) {
    // The folders, RESULTS_ROOT, REPORTS_DIR and RUN_DIR: " " is a slip, never a folder to make.
    const std::string why = name.ends_with("_ROOT") || name.ends_with("_DIR") ? folder_text_problem(value) : "";
    if (!why.empty()) throw SettingsError(name + "='" + value + "': " + why);
  }
  if (const std::string* host = source.text(kHostName)) {
    const bool allowed = host->size() <= 64 && std::all_of(host->begin(), host->end(), [](unsigned char c) {
                           return std::isalnum(c) || c == '-' || c == '.' || c == '_';
                         });
    if (!allowed)
      throw SettingsError(std::string(kHostName.name) + "='" + *host +
                          "': expected up to 64 letters, digits, '-', '.' or '_'");
  }
  if (const std::string* lock = source.text(kHostLock); lock != nullptr) {
    if (const std::string why = host_lock_problem(*lock); !why.empty())
      throw SettingsError(std::string(kHostLock.name) + "='" + *lock + "': " + why +
                          "; expected a file (made if missing) in an existing folder");
  }
  // The profiles choose first, so that every group reads their values through the declarations.
  if (source.text(kSanitize)) choose(source, kSanitizerProfile, "sanitizer profile");
  if (run_profile_of(source) == RunProfile::Health) choose(source, kHealthProfile, "health profile");
  static_cast<TrialSettings&>(s) = TrialSettings::read(source);
  static_cast<JudgeSettings&>(s) = JudgeSettings::read(source);
  static_cast<RunSettings&>(s) = RunSettings::read(source);
  static_cast<StorageSettings&>(s) = StorageSettings::read(source);
  for (const SettingDeclaration& d : declared_settings())
    if (std::string by = source.chosen_by(d); !by.empty()) s.chosen_by_profile.emplace_back(std::string(d.name), by);
  return s;
}

}  // namespace hazardlab
