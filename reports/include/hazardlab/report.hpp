#pragma once
// One report per GPU and run: the device's fingerprint, every hazard and variant with its outcome,
// the performance checks, what the run was (settings, selection, complete or partial) and a
// verdict. Built from a run folder alone (run_record.hpp, results_layout.hpp): no CUDA, no
// registry. Written as JSON (schema in reports/SCHEMA.md), Markdown, HTML and JUnit XML.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hazardlab/catalog.hpp"
#include "hazardlab/device_fingerprint.hpp"
#include "hazardlab/outcome.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/race_window.hpp"
#include "hazardlab/result.hpp"
#include "hazardlab/run_record.hpp"

namespace hazardlab {

inline constexpr const char* kReportSchema = "hazardlab.gpu-report";
inline constexpr int kReportSchemaVersion = 2;

// PASS: every registered case ran and held. PARTIAL: what ran held, but some registered cases did
// not run (a filtered selection): never a pass for what did not run.
enum class Verdict { Pass, Fail, Inconclusive, Partial, Skipped };
std::string_view to_string(Verdict v) noexcept;

struct VariantEntry {
  std::string id;
  VariantKind kind;
  std::string title;
  std::optional<VariantResult> result;  // empty: the case did not run
};

struct HazardEntry {
  CatalogHazard hazard;
  std::vector<VariantEntry> variants;
};

// How many cases ended in each outcome, and how many registered cases left no result.
struct Totals {
  std::map<Outcome, int> outcomes;
  int not_run = 0;
  int of(Outcome o) const noexcept;
};

// A hazard's race-window sweep, with its sentence when the gated control reproduced while no delay
// did without a gate ("" otherwise).
struct RaceWindowEntry {
  std::string hazard_id;
  std::string hazard_title;
  RaceWindow window;
  std::string gate_note;
};

struct GpuReport {
  std::optional<DeviceFingerprint> device;  // empty: no usable GPU
  std::string no_device_reason;
  std::string generated_at;  // UTC, ISO 8601
  std::string host;
  std::string hazardlab_version;
  RunRecord run;                     // the run this report is of
  std::vector<std::string> not_run;  // this GPU's registered cases without a result
  std::vector<HazardEntry> hazards;
  std::vector<VariantResult> unknown_results;  // results naming no registered variant
  Totals totals;
  std::vector<PerfRecord> perf;                 // performance measurements and their checks
  Verdict verdict = Verdict::Skipped;
  std::string verdict_reason;

  bool complete() const noexcept { return not_run.empty(); }
  std::string file_stem() const;  // device_label(): "gpu0" or "nogpu"
};

// How outcomes add up to a verdict, decided here alone (reports/src/verdict.cpp): a case seen failing without a
// result, or any failure, fails the GPU; otherwise anything undecided makes it inconclusive; otherwise a case that
// did not run makes it partial; a GPU with nothing that ran is skipped (a failure when a GPU is required).
struct VerdictInput {
  Totals totals;
  bool has_device = true;
  bool require_gpu = false;
  int failed_checks = 0;  // applicable validation thresholds that were missed
  int passed_checks = 0;
  int untrusted_checks = 0;     // applicable thresholds whose figure could not be trusted
  int measured = 0;             // performance measurement groups taken
  int failed_measurements = 0;  // performance measurements that could not be taken
  // Cases without a result that the caller saw end in failure (their result could not be written, or they
  // crashed): the report alone would count them as not run.
  int failed_without_result = 0;
  // How a GPU came to be required, as the verdict names it: HAZARDLAB_REQUIRE_GPU=1, or --require-gpu.
  std::string_view require_gpu_given_as = "HAZARDLAB_REQUIRE_GPU=1";
};
std::pair<Verdict, std::string> decide_verdict(const VerdictInput& in);

// Everything a report is built from: the contents of one run folder.
struct RunContents {
  RunRecord run;
  Catalog catalog;
  DeviceInventory inventory;
  std::vector<VariantResult> results;
  std::map<int, std::vector<PerfRecord>> perf;  // by device index (-1: no device)
};

// One report per device in the inventory, or a single "no GPU" report. `failed_cases`: the cases the caller saw
// end in failure, by registered name ("gpu0/<hazard>/<variant>"); one that left no result fails its GPU.
std::vector<GpuReport> build_reports(const RunContents& contents, bool require_gpu,
                                     const std::vector<std::string>& failed_cases = {},
                                     std::string_view require_gpu_given_as = "HAZARDLAB_REQUIRE_GPU=1");

// The sweep variants' curves, read from their observations.race_window.
std::vector<RaceWindowEntry> race_windows(const GpuReport& report);

nlohmann::json report_to_json(const GpuReport& report);
// The report for people, laid out once (reports/src/gpu_content.cpp) and written in Markdown, or as a
// page a browser opens with the same content and plots of the figures (self-contained, inline SVG).
std::string report_to_markdown(const GpuReport& report);
std::string report_to_html(const GpuReport& report);
// JUnit XML for CI systems: one testsuite per GPU, one testcase per variant and measurement group;
// skipped and not-run cases are <skipped> with the reason, inconclusive ones <error>.
std::string report_to_junit(const GpuReport& report);

}  // namespace hazardlab
