#pragma once
// Run-time settings, read from HAZARDLAB_* environment variables so that ctest, a teaching
// lab and a fleet's validation script can all set them the same way. A malformed value is an
// error (SettingsError), never silently replaced by the default.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hazardlab/settings_table.hpp"
#include "hold/gate.hpp"
#include "hold/guard.hpp"

namespace hazardlab {

class SettingsError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Settings {
  int control_trials = 100;                                // HAZARDLAB_TRIALS: gated trials per positive control
  int property_cases = 100;                                // HAZARDLAB_PROPERTY_CASES: generated cases per guard
  std::optional<std::uint64_t> seed;                       // HAZARDLAB_SEED: replays a property run
  std::size_t max_transfer_bytes = std::size_t{64} << 20;  // HAZARDLAB_MAX_BYTES
  std::chrono::milliseconds gate_timeout{10'000};          // HAZARDLAB_GATE_TIMEOUT_MS
  std::chrono::milliseconds call_limit{10};                // HAZARDLAB_CALL_LIMIT_MS: a copy call this slow "blocked"
  bool require_gpu = false;                                // HAZARDLAB_REQUIRE_GPU=1: no GPU is a failure
  bool sabotage_guards = false;                            // HAZARDLAB_SABOTAGE_GUARDS=1: guards skip their wait
  bool mutation_check = true;          // HAZARDLAB_MUTATION_CHECK=0: skip rerunning each guard without its wait
  std::filesystem::path run_dir;       // HAZARDLAB_RUN_DIR: the run folder cases leave their results in (set by ctest)
  std::vector<GateKind> gates;         // HAZARDLAB_GATES: comma-separated gate kinds to use (default: all)
  std::filesystem::path results_root;  // HAZARDLAB_RESULTS_ROOT: where runs are kept (default: the build tree's)
  std::filesystem::path reports_dir;   // HAZARDLAB_REPORTS_DIR: where reports are published (default: the build tree's)
  std::size_t keep_runs = 20;          // HAZARDLAB_KEEP_RUNS: run folders and report sets kept
  std::string sanitizer;               // HAZARDLAB_SANITIZE: compute-sanitizer tool for the GPU cases, "" for none
  bool strict = false;                 // HAZARDLAB_STRICT=1: an unknown HAZARDLAB_* name is an error
  bool fresh_processes = false;        // HAZARDLAB_FRESH_PROCESSES=1: no warm worker, a process per case
  bool sweep_full = false;             // HAZARDLAB_SWEEP_PROFILE=full: the race-window sweeps' fuller profile
  bool conformance_full = false;       // HAZARDLAB_CONFORMANCE_PROFILE=full: thousands of generated programs
  std::string profile = "validation";  // HAZARDLAB_PROFILE: validation (every case), health or soak
  std::filesystem::path prometheus_dir;  // HAZARDLAB_PROMETHEUS_DIR: node_exporter's textfile folder, "" for none
  std::chrono::seconds soak_duration{600};  // HAZARDLAB_SOAK_DURATION (10m, 90s, 2h): how long a soak copies
  bool soak_inject_fault = false;  // HAZARDLAB_SOAK_INJECT_FAULT=1: corrupt one byte of one copy (tests the soak)
  std::vector<std::string> run_profile_chosen;  // settings the run profile chose (not in the environment)
  std::vector<std::string> warnings;   // unknown HAZARDLAB_* names, each with the nearest known one
  std::vector<std::string> sanitizer_profile;  // settings the sanitizer profile chose (not in the environment)

  // The fences that poll give up well after a gate would have opened itself.
  std::chrono::milliseconds fence_timeout() const { return gate_timeout * 2; }
  // The guards of a trial: switched off when sabotage_guards is set (the mutation check).
  Guard guard() const { return {sabotage_guards ? Guard::Mode::Sabotaged : Guard::Mode::Enforced, fence_timeout()}; }

  // Validates every HAZARDLAB_* variable of the environment, known or not; throws SettingsError.
  static Settings from_environment();
  // The same, from "NAME=value" entries (the form of `environ`), for tests.
  static Settings from_entries(const std::vector<std::string>& entries);
};


// What HAZARDLAB_SANITIZE changes where the environment does not say: every case still runs, with
// fewer and smaller trials (see apply_sanitizer_profile in settings.cpp).
struct SanitizerProfile {
  int control_trials = 20;
  int property_cases = 20;
  std::size_t max_transfer_bytes = std::size_t{16} << 20;
  std::chrono::milliseconds call_limit{1000};
};
inline constexpr SanitizerProfile kSanitizerProfile{};

// The run profiles HAZARDLAB_PROFILE (and `hazardlab run --profile`) accepts.
inline constexpr std::string_view kRunProfiles[] = {"validation", "health", "soak"};

// The known name nearest to a mistyped HAZARDLAB_* name (setting_names.cpp).
std::string_view nearest_known_setting(std::string_view name);
// `value` if it names a run profile; else a SettingsError naming `what` (the variable or option).
std::string run_profile_named(std::string_view what, const std::string& value);

// "10m", "90s", "2h" or a number of seconds, from 1 s to 7 days; else a SettingsError naming `what`.
std::chrono::seconds parse_duration_text(std::string_view what, const std::string& text);

// What the health profile changes where the environment does not say: every control and one guard
// per hazard, with fewer and smaller trials, so that 16 GPUs finish inside Slurm's 60 s; and no GPU
// is a failure, since a GPU node whose GPUs are gone must be drained.
struct HealthProfile {
  int control_trials = 20;
  int property_cases = 20;
  std::size_t max_transfer_bytes = std::size_t{16} << 20;
  bool mutation_check = false;  // the guard is one of several seen each interval; the full run proves it
};
inline constexpr HealthProfile kHealthProfile{};

// The compute-sanitizer tools HAZARDLAB_SANITIZE accepts.
inline constexpr std::string_view kSanitizerTools[] = {"memcheck", "racecheck", "initcheck", "synccheck"};

// Parses "1", "true", "yes", "on" / "0", "false", "no", "off", "" (case-insensitive).
bool parse_flag(const std::string& name, const std::string& value);

}  // namespace hazardlab
