#pragma once
// Validation thresholds and the checks made against them, as recorded: plain data. The harness
// measures and decides (checks.hpp); the report shows them and counts the misses.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hazardlab::perf {

struct Thresholds {
  // HAZARDLAB_MIN_LINK_FRACTION: pinned copies of 256 MiB and more must reach this share of the
  // PCIe link's raw rate per direction. PCIe packet headers and flow control take 10-15% of the raw
  // rate, so a healthy link delivers 85-90%; 0.80 leaves margin and still catches a link trained
  // down a generation or to fewer lanes, which halves the rate.
  double min_link_fraction = 0.80;
  // HAZARDLAB_MIN_OVERLAP: on a device with a copy engine, a pinned copy on its own stream must hide
  // at least this share of itself behind a kernel. Working overlap hides nearly all of it; 0.50
  // fails only a device or driver that serializes copies with kernels.
  double min_overlap = 0.50;
};

struct Check {
  std::string id;
  std::string description;  // what is required, with the threshold
  std::string rationale;    // why the default is what it is
  bool applicable = true;
  std::string not_applicable_reason;
  bool passed = false;
  // Why the figure cannot decide the check (measured beside other work on the host), "" when it
  // can. An untrusted check neither passes nor fails: the verdict is INCONCLUSIVE.
  std::string untrusted_reason;
  bool decided() const noexcept { return applicable && untrusted_reason.empty(); }
  bool missed() const noexcept { return decided() && !passed; }
  // "PASSED", "FAILED", "UNTRUSTED" or "NOT APPLICABLE", as every report and the case print it.
  const char* result_word() const noexcept {
    return !applicable ? "NOT APPLICABLE" : !decided() ? "UNTRUSTED" : passed ? "PASSED" : "FAILED";
  }
  // What was measured, or why nothing could be decided.
  std::string detail() const {
    if (!applicable) return not_applicable_reason;
    return decided() ? measured : measured + " (" + untrusted_reason + ")";
  }
  std::string measured;  // the figure, in words
  // Every attempt, in words, when a threshold miss was measured again before the check decided.
  std::vector<std::string> attempts;
};

void to_json(nlohmann::json& j, const Check& c);
void from_json(const nlohmann::json& j, Check& c);

}  // namespace hazardlab::perf
