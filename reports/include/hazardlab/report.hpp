#pragma once
// One report per GPU: the device's fingerprint, every hazard and variant with its outcome, the
// totals and a verdict. Written as JSON (schema in reports/SCHEMA.md) and Markdown.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hazardlab/device.hpp"
#include "hazardlab/hazard.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/result.hpp"

namespace hazardlab {

inline constexpr const char* kReportSchema = "hazardlab.gpu-report";
inline constexpr int kReportSchemaVersion = 1;

enum class Verdict { Pass, Fail, Inconclusive, Skipped };
std::string_view to_string(Verdict v) noexcept;

struct VariantEntry {
  std::string id;
  VariantKind kind;
  std::string title;
  std::optional<VariantResult> result;  // empty: the case did not run
};

struct HazardEntry {
  const Hazard* hazard;
  std::vector<VariantEntry> variants;
};

struct GpuReport {
  std::optional<DeviceFingerprint> device;  // empty: no usable GPU
  std::string no_device_reason;
  std::string generated_at;  // UTC, ISO 8601
  std::string host;
  std::string hazardlab_version;
  std::vector<HazardEntry> hazards;
  std::vector<VariantResult> unknown_results;  // results naming no registered variant
  std::map<std::string, int> totals;           // outcome name (and "not-run") -> count
  std::vector<PerfRecord> perf;                // performance measurements and their checks
  Verdict verdict = Verdict::Skipped;
  std::string verdict_reason;

  std::string file_stem() const;  // "gpu0" or "nogpu"
};

// How outcomes add up to a verdict: any failure fails the GPU; otherwise anything undecided
// makes it inconclusive; a GPU with nothing that ran is skipped (a failure when a GPU is required).
struct VerdictInput {
  std::map<std::string, int> totals;
  bool has_device = true;
  bool require_gpu = false;
  int failed_checks = 0;  // applicable validation thresholds that were missed
  int passed_checks = 0;
  int measured = 0;              // performance measurement groups taken
  int failed_measurements = 0;  // performance measurements that could not be taken
};
std::pair<Verdict, std::string> decide_verdict(const VerdictInput& in);

// One report per device in the inventory, or a single "no GPU" report.
std::vector<GpuReport> build_reports(const std::vector<Hazard>& hazards, const DeviceInventory& inventory,
                                     const std::vector<VariantResult>& results, bool require_gpu,
                                     const std::map<int, std::vector<PerfRecord>>& perf = {});

nlohmann::json report_to_json(const GpuReport& report);
std::string report_to_markdown(const GpuReport& report);
// A page a person opens in a browser: the verdict, the device, the checks, plots of bandwidth
// against size and the overlap matrix, and every hazard's outcome. Self-contained (inline SVG).
std::string report_to_html(const GpuReport& report);

// Writes <stem>.json, <stem>.md and <stem>.html for each report atomically; returns the paths.
std::vector<std::string> write_reports(const std::vector<GpuReport>& reports, const std::string& out_dir);

std::string utc_now_iso8601();

}  // namespace hazardlab
