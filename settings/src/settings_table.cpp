#include "hazardlab/settings_table.hpp"

#include <array>

namespace hazardlab {
namespace {

using T = SettingType;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

}  // namespace

namespace setting {

// The README's settings table shows the same rows: name, default and help (a test compares them).
constexpr SettingDeclaration kRequireGpu{"HAZARDLAB_REQUIRE_GPU", T::Flag, "0", "a flag",
                                         "1: no usable GPU, or a partial run, is a failure, not a skip"};
constexpr SettingDeclaration kTrials{
    "HAZARDLAB_TRIALS", T::Count, "100", "1 to 100000", "gated trials per positive control", 1, 100000};
constexpr SettingDeclaration kPropertyCases{"HAZARDLAB_PROPERTY_CASES",           T::Count, "100", "1 to 100000",
                                            "generated cases per guard and rule", 1,        100000};
constexpr SettingDeclaration kSeed{"HAZARDLAB_SEED", T::Seed, "random", "0 to 2^64-1",
                                   "seed of the property runs: replays a reported failure"};
constexpr SettingDeclaration kMaxBytes{"HAZARDLAB_MAX_BYTES",        T::Bytes, "67108864", "4096 to 16 GiB",
                                       "largest generated transfer", 4096,     16 * kGiB};
constexpr SettingDeclaration kGateTimeoutMs{
    "HAZARDLAB_GATE_TIMEOUT_MS",
    T::Millis,
    "10000",
    "100 to 600000",
    "a gate that nobody opens opens itself after this long, with a loud diagnosis",
    100,
    600'000};
constexpr SettingDeclaration kCallLimitMs{
    "HAZARDLAB_CALL_LIMIT_MS",
    T::Millis,
    "10",
    "1 to 60000, below the gate timeout",
    "a copy call still inside after this long is taken to wait for the stream; a watchdog then "
    "opens the gate",
    1,
    60'000};
constexpr SettingDeclaration kGates{"HAZARDLAB_GATES", T::List, "both", "host-function, spin-kernel",
                                    "`host-function`, `spin-kernel` or both, comma-separated"};
constexpr SettingDeclaration kSabotageGuards{"HAZARDLAB_SABOTAGE_GUARDS", T::Flag, "0", "a flag",
                                             "1: guards skip their wait (to see the suite catch it)"};
constexpr SettingDeclaration kMutationCheck{"HAZARDLAB_MUTATION_CHECK", T::Flag, "1", "a flag",
                                            "0: do not rerun each passing guard without its synchronization"};
constexpr SettingDeclaration kPerfProfile{"HAZARDLAB_PERF_PROFILE", T::Choice, "quick", "quick, full",
                                          "`quick` or `full` performance measurements"};
constexpr SettingDeclaration kSweepProfile{"HAZARDLAB_SWEEP_PROFILE", T::Choice, "quick", "quick, full",
                                           "`quick` or `full` race-window sweeps (label `sweep`)"};
constexpr SettingDeclaration kConformanceProfile{
    "HAZARDLAB_CONFORMANCE_PROFILE", T::Choice, "quick", "quick, full",
    "`quick` (300 generated programs) or `full` (3000) conformance run (label `conformance`)"};
constexpr SettingDeclaration kPinnedBudgetMb{
    "HAZARDLAB_PINNED_BUDGET_MB",
    T::Count,
    "2048",
    "64 to 1048576",
    "page-locked memory the performance measurements may hold at once; larger sizes are left out",
    64,
    1048576};
constexpr SettingDeclaration kMinLinkFraction{
    "HAZARDLAB_MIN_LINK_FRACTION", T::Fraction, "0.80", "0 to 1",
    "validation threshold: pinned bandwidth as a share of the PCIe link's raw rate"};
constexpr SettingDeclaration kMinOverlap{"HAZARDLAB_MIN_OVERLAP", T::Fraction, "0.50", "0 to 1",
                                         "validation threshold: share of a pinned copy hidden behind a kernel"};
constexpr SettingDeclaration kNvbandwidth{"HAZARDLAB_NVBANDWIDTH", T::Path, "on `PATH`", "an executable file, or off",
                                          "nvbandwidth binary to measure beside the suite, or `off`"};
constexpr SettingDeclaration kHostLock{
    "HAZARDLAB_HOST_LOCK", T::Path, "`<tmp>/hazardlab-host.lock`", "a file",
    "the host-wide lock that keeps bandwidth and overlap alone (with `<lock>.intent` beside it, "
    "which lines cases up behind a waiting measurement)"};
constexpr SettingDeclaration kTimedTurns{
    "HAZARDLAB_TIMED_TURNS", T::Choice, "host", "host, numa-node, gpu",
    "whose bandwidth and overlap take turns under the host lock: `host` (every GPU's), `numa-node` (only "
    "those of GPUs on one NUMA node: GPUs of different nodes are timed at once) or `gpu` (none: every GPU "
    "is timed beside the others); docs/performance.md says which measurement decides"};
constexpr SettingDeclaration kSanitize{
    "HAZARDLAB_SANITIZE", T::Choice, "unset", "memcheck, racecheck, initcheck, synccheck",
    "read by ctest: run the GPU cases under `compute-sanitizer --tool <value>` (`memcheck`, "
    "`racecheck`, `initcheck`, `synccheck`); a missing compute-sanitizer fails the run"};
constexpr SettingDeclaration kResultsRoot{"HAZARDLAB_RESULTS_ROOT", T::Path, "`build/suite/results`", "a folder",
                                          "read by ctest: where runs are kept"};
constexpr SettingDeclaration kReportsDir{"HAZARDLAB_REPORTS_DIR", T::Path, "`build/suite/gpu-reports`", "a folder",
                                         "read by ctest: where reports are published"};
constexpr SettingDeclaration kKeepRuns{
    "HAZARDLAB_KEEP_RUNS",
    T::Count,
    "20",
    "1 to 100000",
    "run folders kept when a run starts, and report sets kept when it is reported, newest first "
    "(`current` and `latest` always)",
    1,
    100000};
constexpr SettingDeclaration kStrict{"HAZARDLAB_STRICT", T::Flag, "0", "a flag",
                                     "1: an unknown `HAZARDLAB_*` name is an error"};
constexpr SettingDeclaration kHostName{
    "HAZARDLAB_HOST_NAME", T::Text, "the machine's", "up to 64 letters, digits, '-', '.', '_'",
    "the host name recorded in runs and fleet rows (letters, digits, `-`, `.`, `_`; containers "
    "often have a random one)"};
constexpr SettingDeclaration kFreshProcesses{
    "HAZARDLAB_FRESH_PROCESSES", T::Flag, "0", "a flag",
    "1: every case in a new process of its own instead of the GPU's warm worker (see \"How it "
    "works\")"};
constexpr SettingDeclaration kProfile{
    "HAZARDLAB_PROFILE", T::Choice, "validation", "validation, health, soak",
    "which cases a run is made of: `validation` (every case), `health` or `soak` (see \"Node "
    "health\"); `hazardlab run --profile` sets it"};
constexpr SettingDeclaration kPrometheusDir{
    "HAZARDLAB_PROMETHEUS_DIR", T::Path, "unset", "a folder",
    "node_exporter's textfile-collector folder: the report writes `hazardlab.prom` there"};
constexpr SettingDeclaration kSoakDuration{
    "HAZARDLAB_SOAK_DURATION",
    T::Duration,
    "10m",
    "1s to 7d",
    "how long a soak copies and verifies (`90s`, `10m`, `2h`); `hazardlab run --duration` sets it",
    1,
    7 * 86400};
constexpr SettingDeclaration kSoakInjectFault{
    "HAZARDLAB_SOAK_INJECT_FAULT", T::Choice, "0", "0, 1, peer",
    "tests only: flips one byte of one soak copy, to see the soak catch it: 1 the first pinned "
    "device-to-host copy, peer the first copy to another GPU"};
constexpr SettingDeclaration kRunDir{"HAZARDLAB_RUN_DIR", T::Path, "set for each case", "a folder",
                                     "the run folder a case writes its result into; ctest and `hazardlab run` set it"};
// Not HAZARDLAB_*: the suite warns of unknown HAZARDLAB_* names, and its cases may run under the checker.
constexpr SettingDeclaration kCheckLogFolder{"HL_CHECK_LOG_FOLDER", T::Path, "set by `hazardlab check`", "a folder",
                                             "where each process of a checked program writes its log"};
constexpr SettingDeclaration kCheckSample{
    "HL_CHECK_SAMPLE",
    T::Count,
    "0",
    "0 to 1000000, 0 for every copy",
    "set by `hazardlab check --sample N`: watch each host range's first N copies, then one in N",
    0,
    1'000'000};
constexpr SettingDeclaration kCheckEveryOccurrence{
    "HL_CHECK_EVERY_OCCURRENCE", T::Flag, "0", "a flag",
    "set by `hazardlab check --every-occurrence`: report each copy's first conflicting access, not "
    "one finding per pair of call sites"};
constexpr SettingDeclaration kCheckKernelsOwnMappedMemory{
    "HL_CHECK_KERNELS_OWN_MAPPED_MEMORY", T::Flag, "0", "a flag",
    "set by `hazardlab check --kernels-own-mapped-memory`: a kernel handed a pointer into pinned host memory "
    "owns the bytes it points to while it may run, as a copy owns its host end"};
constexpr SettingDeclaration kCheckManagedMemory{
    "HL_CHECK_MANAGED_MEMORY", T::Flag, "0", "a flag",
    "set by `hazardlab check --managed-memory`: a kernel handed a pointer into managed memory owns the whole "
    "allocation until the host knows it ran, and a host access meanwhile is a finding"};
constexpr SettingDeclaration kCheckGraphNodes{
    "HL_CHECK_GRAPH_NODES", T::Flag, "0", "a flag",
    "set by `hazardlab check --graph-nodes`: each kernel, memcpy and memset node of a launched CUDA graph is device "
    "work of its own, ordered by the graph's edges, instead of the launch being one item of its stream"};
constexpr SettingDeclaration kCheckPtxFootprints{
    "HL_CHECK_PTX_FOOTPRINTS", T::Flag, "0", "a flag",
    "set by `hazardlab check --ptx-footprints`: what a kernel touches is read from its PTX and bounded for each "
    "launch's arguments, grid and block; a kernel whose PTX is not found or not followed is judged by its rule"};
constexpr SettingDeclaration kCheckProtection{
    "HL_CHECK_PROTECTION", T::Choice, "auto", "auto, keys, range-keys, mprotect",
    "set by `hazardlab check --protection`: how owned pages are protected: `range-keys` (memory protection "
    "keys, and a key per pinned range that a copy closes without a system call), `keys` (two keys alone, "
    "which close a held page for every thread but the one whose access is let through, with a system call "
    "per copy), `mprotect`, or `auto` (range keys where the CPU and kernel offer keys, else mprotect)"};

// The measuring tools of checker/footprints/ and checker/benchmarks/, preloaded into a program by hand.
constexpr SettingDeclaration kFootprintMode{
    "HL_FOOTPRINT_MODE", T::Choice, "record", "off, null, record",
    "the footprint probe: `off` (subscribed, nothing patched), `null` (every kernel patched, nothing recorded) "
    "or `record` (each launch's read and write hulls per allocation)"};
constexpr SettingDeclaration kFootprintPatch{"HL_FOOTPRINT_PATCH", T::Path, "`footprint_patch.fatbin`", "a file",
                                             "the footprint probe's device patch (built beside it)"};
constexpr SettingDeclaration kFootprintCupti{"HL_FOOTPRINT_CUPTI", T::Flag, "0", "a flag",
                                             "1: the footprint probe also subscribes to CUPTI and counts launches"};
constexpr SettingDeclaration kFootprintPrint{"HL_FOOTPRINT_PRINT", T::Count, "0", "0 to 100000",
                                             "the footprint probe prints the first N launches' footprints at exit",
                                             0, 100000};
constexpr SettingDeclaration kProfileOut{"HL_PROFILE_OUT", T::Path, "unset", "a file",
                                         "set: the launching-thread profiler samples the main thread, writes here"};
constexpr SettingDeclaration kProfileIntervalUs{"HL_PROFILE_INTERVAL_US", T::Count, "200", "50 to 1000000",
                                                "microseconds between the launching-thread profiler's samples", 50,
                                                1'000'000};

}  // namespace setting

namespace {

constexpr std::array kTable = {setting::kRequireGpu,
                               setting::kTrials,
                               setting::kPropertyCases,
                               setting::kSeed,
                               setting::kMaxBytes,
                               setting::kGateTimeoutMs,
                               setting::kCallLimitMs,
                               setting::kGates,
                               setting::kSabotageGuards,
                               setting::kMutationCheck,
                               setting::kPerfProfile,
                               setting::kSweepProfile,
                               setting::kConformanceProfile,
                               setting::kPinnedBudgetMb,
                               setting::kMinLinkFraction,
                               setting::kMinOverlap,
                               setting::kNvbandwidth,
                               setting::kHostLock,
                               setting::kTimedTurns,
                               setting::kSanitize,
                               setting::kResultsRoot,
                               setting::kReportsDir,
                               setting::kKeepRuns,
                               setting::kStrict,
                               setting::kHostName,
                               setting::kFreshProcesses,
                               setting::kProfile,
                               setting::kPrometheusDir,
                               setting::kSoakDuration,
                               setting::kSoakInjectFault,
                               setting::kRunDir,
                               setting::kCheckLogFolder,
                               setting::kCheckSample,
                               setting::kCheckEveryOccurrence,
                               setting::kCheckKernelsOwnMappedMemory,
                               setting::kCheckManagedMemory,
                               setting::kCheckGraphNodes,
                               setting::kCheckPtxFootprints,
                               setting::kCheckProtection,
                               setting::kFootprintMode,
                               setting::kFootprintPatch,
                               setting::kFootprintCupti,
                               setting::kFootprintPrint,
                               setting::kProfileOut,
                               setting::kProfileIntervalUs};

}  // namespace

std::span<const SettingDeclaration> declared_settings() { return kTable; }

}  // namespace hazardlab
