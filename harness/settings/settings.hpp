#pragma once
// Run-time settings, read from HAZARDLAB_* environment variables so that ctest, a teaching lab and
// a fleet's validation script can all set them the same way. Each variable is declared once
// (settings/src/settings_table.cpp) and read through its declaration; a malformed value is an
// error (SettingsError), never silently replaced by the default.
//
// The settings come in groups, one per layer that reads them, and each group reads and records
// itself: a trial receives TrialSettings and nothing else, a judge JudgeSettings, the run plan
// RunSettings, the tools that keep runs StorageSettings. `Settings` is all of them together.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hazardlab/run_profile.hpp"
#include "hazardlab/setting_source.hpp"
#include "hazardlab/settings_table.hpp"
#include "hold/gate.hpp"
#include "hold/guard.hpp"

namespace hazardlab {

// A setting's value as it is in force, for the run's record: the declaration names it.
struct SettingInForce {
  const SettingDeclaration* setting;
  std::string value;
};
using SettingsInForce = std::vector<SettingInForce>;

// What one trial reads: how long it may hold its stream and wait, and whether its guard is on.
struct TrialSettings {
  std::chrono::milliseconds gate_timeout{10'000};  // a gate nobody opens opens itself after this long
  std::chrono::milliseconds call_limit{10};        // a copy call this slow is taken to wait for the stream
  bool sabotage_guards = false;                    // the mutation check: guards skip their wait
  bool under_sanitizer = false;  // compute-sanitizer serializes streams that CUDA would not (HAZARDLAB_SANITIZE)

  // The fences that poll give up well after a gate would have opened itself.
  std::chrono::milliseconds fence_timeout() const { return gate_timeout * 2; }
  // The guards of a trial: switched off when sabotage_guards is set (the mutation check).
  Guard guard() const { return {sabotage_guards ? Guard::Mode::Sabotaged : Guard::Mode::Enforced, fence_timeout()}; }

  static TrialSettings read(const SettingSource& source);
  void record(SettingsInForce& out) const;
};

// What the judges read: how often each variant is tried, over which gates and sizes, and whether
// a passing guard is tried again without its synchronization.
struct JudgeSettings {
  int control_trials = 100;                                // gated trials per positive control
  int property_cases = 100;                                // generated cases per guard
  std::optional<std::uint64_t> seed;                       // replays a property run
  std::size_t max_transfer_bytes = std::size_t{64} << 20;  // the largest generated transfer
  bool mutation_check = true;                              // rerun each passing guard without its wait
  std::vector<GateKind> gates;                             // the gate kinds to use; empty: all

  static JudgeSettings read(const SettingSource& source);
  void record(SettingsInForce& out) const;
};

// HAZARDLAB_SOAK_INJECT_FAULT, for tests of the soak: which copy gets one byte flipped after it landed.
enum class SoakFault { None, PinnedDeviceToHost, Peer };
SoakFault soak_fault_named(const std::string& word);  // a word the declaration allows: 0, 1, peer
std::string_view setting_word(SoakFault fault);

// HAZARDLAB_PROFILE as `source` gives it: the one reading of the run profile, for the settings and the
// measurements alike (a value the declaration refuses throws SettingsError).
RunProfile run_profile_of(const SettingSource& source);

// What the run plan and the case programs read: which run this is and what it is made of.
struct RunSettings {
  RunProfile profile = RunProfile::Validation;  // which cases the run is made of
  std::filesystem::path run_dir;            // the run folder cases leave their results in (set by ctest)
  bool require_gpu = false;                 // no GPU, or a partial run, is a failure
  bool fresh_processes = false;             // no warm worker, a process per case
  std::string sanitizer;                    // the compute-sanitizer tool for the GPU cases, "" for none
  bool sweep_full = false;                  // the race-window sweeps' fuller profile
  bool conformance_full = false;            // thousands of generated programs
  std::chrono::seconds soak_duration{600};  // how long a soak copies
  SoakFault soak_inject_fault = SoakFault::None;  // corrupt one byte of one copy

  static RunSettings read(const SettingSource& source);
  void record(SettingsInForce& out) const;
};

// What the tools that start, keep and publish runs read: where runs and reports are kept.
struct StorageSettings {
  std::filesystem::path results_root;    // where runs are kept (default: the build tree's)
  std::filesystem::path reports_dir;     // where reports are published (default: the build tree's)
  std::size_t keep_runs = 20;            // run folders and report sets kept
  std::filesystem::path prometheus_dir;  // node_exporter's textfile folder, "" for none

  static StorageSettings read(const SettingSource& source);
  void record(SettingsInForce& out) const;
};

// A setting given on the command line (`hazardlab run --profile`, `--duration`), in the words its declaration
// reads: it stands above the environment, and `hazardlab run` hands it to every case and measurement it starts.
struct CommandLineSetting {
  const SettingDeclaration* setting;
  std::string value;
  std::string entry() const { return std::string(setting->name) + "=" + value; }  // as the environment holds it
};

struct Settings : TrialSettings, JudgeSettings, RunSettings, StorageSettings {
  bool strict = false;                // an unknown HAZARDLAB_* name is an error
  std::vector<std::string> warnings;  // unknown HAZARDLAB_* names, each with the nearest known one
  // Which profile chose each setting the environment left alone (sanitizer, health), by name.
  std::vector<std::pair<std::string, std::string>> chosen_by_profile;

  // Every group's settings in force, as each group records itself.
  SettingsInForce in_force() const;
  // The profile that chose `setting`'s value; "" when the environment or the default decided.
  std::string chosen_by(const SettingDeclaration& setting) const;

  // Validates every HAZARDLAB_* variable of the environment, known or not, and the settings the command line
  // gave, which stand above it; throws SettingsError.
  static Settings from_environment(const std::vector<CommandLineSetting>& command_line = {});
  // The same, from "NAME=value" entries (the form of `environ`), for tests.
  static Settings from_entries(const std::vector<std::string>& entries);
};

}  // namespace hazardlab
