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
#include <vector>

#include "hazardlab/gate.hpp"

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
  bool mutation_check = true;         // HAZARDLAB_MUTATION_CHECK=0: skip rerunning each guard without its wait
  std::filesystem::path results_dir;  // HAZARDLAB_RESULTS_DIR: where cases leave their results
  std::vector<GateKind> gates;        // HAZARDLAB_GATES: comma-separated gate kinds to use (default: all)

  static Settings from_environment();  // throws SettingsError
  // The variables this reads, with their meaning, for --help texts and the README.
  static std::vector<std::pair<std::string, std::string>> documentation();
};

// Parses "1", "true", "yes", "on" / "0", "false", "no", "off", "" (case-insensitive).
bool parse_flag(const std::string& name, const std::string& value);

}  // namespace hazardlab
