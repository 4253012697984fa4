#pragma once
// The side-by-side mode: NVIDIA's nvbandwidth, when it is on PATH or HAZARDLAB_NVBANDWIDTH names
// it, measures the same GPU in the same case, and the report puts its figures beside ours with
// their ratio. It is a measuring stick, not a dependency: without it the figures stand alone.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hazardlab::perf {

// HAZARDLAB_NVBANDWIDTH: a path to the binary, or "off"; unset: nvbandwidth on PATH, if any.
// Throws SettingsError for a path that is not an executable file.
std::optional<std::filesystem::path> reference_tool_from_environment();

// nvbandwidth's copy-engine tests this suite has figures for, by the suite's name for them.
struct ReferenceTest {
  std::string ours;  // "h2d", "d2h", "h2d-bidirectional", "d2h-bidirectional"
  std::string nvbandwidth;
};
const std::vector<ReferenceTest>& reference_tests();

struct ReferenceRun {
  std::string command;
  std::string error;                   // empty when it ran and every figure was read
  std::map<std::string, double> gbps;  // by ReferenceTest::ours
};

// nvbandwidth's JSON output (-j) -> GB/s by test name (its "sum" over the one visible GPU);
// throws std::runtime_error naming what is missing or malformed.
std::map<std::string, double> parse_nvbandwidth_json(const std::string& text);

// Runs nvbandwidth on the GPU with `uuid` alone (CUDA_VISIBLE_DEVICES) with a buffer of `bytes`.
ReferenceRun run_reference(const std::filesystem::path& tool, const std::string& uuid, std::size_t bytes);

// nvbandwidth reports one figure per run (the median of its own few samples), and on a shared host a
// whole run can dip: in ten suite runs on an H100, 5 of 30 of its figures came out 5-19% under its
// usual 55 GB/s while ours, measured minutes apart, did not. The reference is therefore the median of
// this many runs, spread over the measurement (every size once, then again), each run reported.
inline constexpr int kReferenceRuns = 3;

struct ReferenceFigures {
  std::map<std::string, double> median;               // by ReferenceTest::ours, over the runs that read it
  std::map<std::string, std::vector<double>> values;  // every run's figure, in run order
  std::vector<std::string> errors;                    // "command: error" of each run that failed
};
ReferenceFigures combine_runs(const std::vector<ReferenceRun>& runs);

// A checked figure more than 3% under nvbandwidth's median for it is measured again on fresh memory, as a
// threshold miss is (statistics.hpp): in ten H100 runs 3 of 60 such figures dipped 3-8% under a reference
// whose own three runs held, on a host where any few seconds can be slow. Every attempt is reported; a
// figure that stays under is reported so, and decides no check by itself.
inline constexpr double kReferenceAgreement = 0.97;

// What a checked figure's attempt must reach to be taken without another: the threshold, or
// kReferenceAgreement of the reference (0: none) when that is higher.
double confirmation_floor(double threshold_gbps, double reference_gbps) noexcept;

// nvbandwidth on the same GPU at each checked size, kReferenceRuns runs each (every size once, then
// again), combined into a median per figure. Run before our figures, which are confirmed against it.
std::map<std::size_t, ReferenceFigures> run_references(const std::filesystem::path& tool,
                                                       const std::vector<std::size_t>& checked_sizes,
                                                       const std::string& uuid);

}  // namespace hazardlab::perf
