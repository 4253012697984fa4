#include "hazardlab/settings_table.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace hazardlab {
namespace {

using T = SettingType;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// The README's settings table shows the same rows: name, default and help (a test compares them).
constexpr std::array kTable = {
    SettingDeclaration{"HAZARDLAB_REQUIRE_GPU", T::Flag, "0", "a flag",
                       "1: no usable GPU, or a partial run, is a failure, not a skip"},
    SettingDeclaration{"HAZARDLAB_TRIALS", T::Count, "100", "1 to 100000", "gated trials per positive control", 1,
                       100000},
    SettingDeclaration{"HAZARDLAB_PROPERTY_CASES", T::Count, "100", "1 to 100000",
                       "generated cases per guard and rule", 1, 100000},
    SettingDeclaration{"HAZARDLAB_SEED", T::Seed, "random", "0 to 2^64-1",
                       "seed of the property runs: replays a reported failure"},
    SettingDeclaration{"HAZARDLAB_MAX_BYTES", T::Bytes, "67108864", "4096 to 16 GiB", "largest generated transfer",
                       4096, 16 * kGiB},
    SettingDeclaration{"HAZARDLAB_GATE_TIMEOUT_MS", T::Millis, "10000", "100 to 600000",
                       "a gate that nobody opens opens itself after this long, with a loud diagnosis", 100, 600'000},
    SettingDeclaration{"HAZARDLAB_CALL_LIMIT_MS", T::Millis, "10", "1 to 60000, below the gate timeout",
                       "a copy call still inside after this long is taken to wait for the stream; a watchdog then "
                       "opens the gate",
                       1, 60'000},
    SettingDeclaration{"HAZARDLAB_GATES", T::List, "both", "host-function, spin-kernel",
                       "`host-function`, `spin-kernel` or both, comma-separated"},
    SettingDeclaration{"HAZARDLAB_SABOTAGE_GUARDS", T::Flag, "0", "a flag",
                       "1: guards skip their wait (to see the suite catch it)"},
    SettingDeclaration{"HAZARDLAB_MUTATION_CHECK", T::Flag, "1", "a flag",
                       "0: do not rerun each passing guard without its synchronization"},
    SettingDeclaration{"HAZARDLAB_PERF_PROFILE", T::Choice, "quick", "quick, full",
                       "`quick` or `full` performance measurements"},
    SettingDeclaration{"HAZARDLAB_SWEEP_PROFILE", T::Choice, "quick", "quick, full",
                       "`quick` or `full` race-window sweeps (label `sweep`)"},
    SettingDeclaration{"HAZARDLAB_CONFORMANCE_PROFILE", T::Choice, "quick", "quick, full",
                       "`quick` (300 generated programs) or `full` (3000) conformance run (label `conformance`)"},
    SettingDeclaration{"HAZARDLAB_PINNED_BUDGET_MB", T::Count, "2048", "64 to 1048576",
                       "page-locked memory the performance measurements may hold at once; larger sizes are left out",
                       64, 1048576},
    SettingDeclaration{"HAZARDLAB_MIN_LINK_FRACTION", T::Fraction, "0.80", "0 to 1",
                       "validation threshold: pinned bandwidth as a share of the PCIe link's raw rate"},
    SettingDeclaration{"HAZARDLAB_MIN_OVERLAP", T::Fraction, "0.50", "0 to 1",
                       "validation threshold: share of a pinned copy hidden behind a kernel"},
    SettingDeclaration{"HAZARDLAB_NVBANDWIDTH", T::Path, "on `PATH`", "an executable file, or off",
                       "nvbandwidth binary to measure beside the suite, or `off`"},
    SettingDeclaration{"HAZARDLAB_HOST_LOCK", T::Path, "`<tmp>/hazardlab-host.lock`", "a file",
                       "the host-wide lock that keeps bandwidth and overlap alone (with `<lock>.intent` beside it, "
                       "which lines cases up behind a waiting measurement)"},
    SettingDeclaration{"HAZARDLAB_SANITIZE", T::Choice, "unset", "memcheck, racecheck, initcheck, synccheck",
                       "read by ctest: run the GPU cases under `compute-sanitizer --tool <value>` (`memcheck`, "
                       "`racecheck`, `initcheck`, `synccheck`); a missing compute-sanitizer fails the run"},
    SettingDeclaration{"HAZARDLAB_RESULTS_ROOT", T::Path, "`build/suite/results`", "a folder",
                       "read by ctest: where runs are kept"},
    SettingDeclaration{"HAZARDLAB_REPORTS_DIR", T::Path, "`build/suite/gpu-reports`", "a folder",
                       "read by ctest: where reports are published"},
    SettingDeclaration{"HAZARDLAB_KEEP_RUNS", T::Count, "20", "1 to 100000",
                       "run folders kept when a run starts, and report sets kept when it is reported, newest first "
                       "(`current` and `latest` always)",
                       1, 100000},
    SettingDeclaration{"HAZARDLAB_STRICT", T::Flag, "0", "a flag", "1: an unknown `HAZARDLAB_*` name is an error"},
    SettingDeclaration{"HAZARDLAB_HOST_NAME", T::Text, "the machine's", "up to 64 letters, digits, '-', '.', '_'",
                       "the host name recorded in runs and fleet rows (letters, digits, `-`, `.`, `_`; containers "
                       "often have a random one)"},
    SettingDeclaration{"HAZARDLAB_FRESH_PROCESSES", T::Flag, "0", "a flag",
                       "1: every case in a new process of its own instead of the GPU's warm worker (see \"How it "
                       "works\")"},
    SettingDeclaration{"HAZARDLAB_PROFILE", T::Choice, "validation", "validation, health, soak",
                       "which cases a run is made of: `validation` (every case), `health` or `soak` (see \"Node "
                       "health\"); `hazardlab run --profile` sets it"},
    SettingDeclaration{"HAZARDLAB_PROMETHEUS_DIR", T::Path, "unset", "a folder",
                       "node_exporter's textfile-collector folder: the report writes `hazardlab.prom` there"},
    SettingDeclaration{"HAZARDLAB_SOAK_DURATION", T::Duration, "10m", "1s to 7d",
                       "how long a soak copies and verifies (`90s`, `10m`, `2h`); `hazardlab run --duration` sets it"},
    SettingDeclaration{"HAZARDLAB_SOAK_INJECT_FAULT", T::Flag, "0", "a flag",
                       "tests only: 1 flips one byte of one soak copy, to see the soak catch it"},
    SettingDeclaration{"HAZARDLAB_RUN_DIR", T::Path, "set for each case", "a folder",
                       "the run folder a case writes its result into; ctest and `hazardlab run` set it"},
    // Not HAZARDLAB_*: the suite warns of unknown HAZARDLAB_* names, and its cases may run under the checker.
    SettingDeclaration{"HL_CHECK_LOG_FOLDER", T::Path, "set by `hazardlab check`", "a folder",
                       "where each process of a checked program writes its log"},
    SettingDeclaration{"HL_CHECK_SAMPLE", T::Count, "0", "0 to 2^32-1, 0 for every copy",
                       "set by `hazardlab check --sample N`: watch each host range's first N copies, then one in N",
                       0, UINT32_MAX},
    SettingDeclaration{"HL_CHECK_EVERY_OCCURRENCE", T::Flag, "0", "a flag",
                       "set by `hazardlab check --every-occurrence`: report each copy's first conflicting access, not "
                       "one finding per pair of call sites"},
};

}  // namespace

std::span<const SettingDeclaration> declared_settings() { return kTable; }

bool is_declared_setting(std::string_view name) {
  return std::any_of(kTable.begin(), kTable.end(), [&](const SettingDeclaration& d) { return d.name == name; });
}

const SettingDeclaration& declared_setting(std::string_view name) {
  const auto it = std::find_if(kTable.begin(), kTable.end(), [&](const SettingDeclaration& d) { return d.name == name; });
  if (it == kTable.end()) throw std::logic_error("no setting " + std::string(name) + " is declared");
  return *it;
}

}  // namespace hazardlab
