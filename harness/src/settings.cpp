#include "hazardlab/settings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace hazardlab {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

std::uint64_t parse_unsigned(const char* name, const std::string& text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < min || value > max) {
    throw SettingsError(std::string(name) + "='" + text + "': expected a whole number from " + std::to_string(min) +
                        " to " + std::to_string(max));
  }
  return value;
}

template <typename T>
void read_unsigned(const char* name, T& out, std::uint64_t min, std::uint64_t max) {
  if (const char* v = env(name)) out = static_cast<T>(parse_unsigned(name, v, min, max));
}

template <typename Duration>
void read_duration(const char* name, Duration& out, std::uint64_t min, std::uint64_t max) {
  if (const char* v = env(name)) out = Duration(parse_unsigned(name, v, min, max));
}

}  // namespace

bool parse_flag(const std::string& name, const std::string& value) {
  std::string v = value;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v.empty() || v == "0" || v == "false" || v == "no" || v == "off") return false;
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  throw SettingsError(name + "='" + value + "': expected 1/0, true/false, yes/no or on/off");
}

Settings Settings::from_environment() {
  Settings s;
  read_unsigned("HAZARDLAB_TRIALS", s.control_trials, 1, 100000);
  read_unsigned("HAZARDLAB_PROPERTY_CASES", s.property_cases, 1, 100000);
  read_unsigned("HAZARDLAB_MAX_BYTES", s.max_transfer_bytes, 4096, std::uint64_t{16} << 30);
  read_duration("HAZARDLAB_GATE_TIMEOUT_MS", s.gate_timeout, 100, 600'000);
  read_duration("HAZARDLAB_CALL_LIMIT_MS", s.call_limit, 1, 60'000);
  if (const char* v = env("HAZARDLAB_SEED")) s.seed = parse_unsigned("HAZARDLAB_SEED", v, 0, UINT64_MAX);
  if (const char* v = env("HAZARDLAB_REQUIRE_GPU")) s.require_gpu = parse_flag("HAZARDLAB_REQUIRE_GPU", v);
  if (const char* v = env("HAZARDLAB_SABOTAGE_GUARDS")) s.sabotage_guards = parse_flag("HAZARDLAB_SABOTAGE_GUARDS", v);
  if (const char* v = env("HAZARDLAB_MUTATION_CHECK")) s.mutation_check = parse_flag("HAZARDLAB_MUTATION_CHECK", v);
  if (const char* v = env("HAZARDLAB_RESULTS_DIR")) s.results_dir = v;
  if (const char* v = env("HAZARDLAB_GATES")) {
    std::string list = v;
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
  if (s.call_limit >= s.gate_timeout) {
    throw SettingsError("HAZARDLAB_CALL_LIMIT_MS must be shorter than HAZARDLAB_GATE_TIMEOUT_MS");
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> Settings::documentation() {
  return {
      {"HAZARDLAB_REQUIRE_GPU", "1: a machine without a usable GPU fails instead of skipping (default 0)"},
      {"HAZARDLAB_TRIALS", "gated trials per positive control (default 100)"},
      {"HAZARDLAB_PROPERTY_CASES", "generated cases per guard property (default 100)"},
      {"HAZARDLAB_SEED", "seed of the property runs, to replay a reported failure (default: random)"},
      {"HAZARDLAB_MAX_BYTES", "largest generated transfer in bytes (default 67108864 = 64 MiB)"},
      {"HAZARDLAB_GATE_TIMEOUT_MS", "a gate nobody opens opens itself after this long (default 10000)"},
      {"HAZARDLAB_CALL_LIMIT_MS", "a copy call still inside after this long is taken to block (default 10)"},
      {"HAZARDLAB_SABOTAGE_GUARDS", "1: guards skip their wait, to see the suite catch it (default 0)"},
      {"HAZARDLAB_MUTATION_CHECK", "0: do not rerun each passing guard without its wait (default 1)"},
      {"HAZARDLAB_GATES", "gates to hold streams with: host-function,spin-kernel (default both)"},
      {"HAZARDLAB_RESULTS_DIR", "where each case writes its result for the report (set by ctest)"},
  };
}

}  // namespace hazardlab
