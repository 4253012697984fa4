// A GPU's report as a list of cases, listed once for the results table and JUnit: each variant with its
// outcome, each measurement group with its status and the checks that missed.
#include <cctype>

#include "gpu_content.hpp"

namespace hazardlab {
namespace {

std::string upper(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::string outcome_text(const VariantEntry& v) {
  return v.result ? upper(std::string(to_string(v.result->outcome))) : "not run";
}

std::vector<CaseLine> case_lines(const GpuReport& report) {
  std::vector<CaseLine> lines;
  for (const HazardEntry& he : report.hazards) {
    for (const VariantEntry& v : he.variants) {
      CaseLine c{he.hazard.id, v.id, std::string(to_string(v.kind)), Standing::NotRun, outcome_text(v)};
      if (!v.result) {
        c.message = "did not run in run " + report.run.id + " (not selected, or the run ended before it)";
      } else {
        const VariantResult& r = *v.result;
        c.standing = standing_of(r.outcome);
        c.seconds = r.duration_ms / 1000;
        c.type = std::string(to_string(r.outcome));
        c.message = r.reason;
        if (r.trials > 0) {
          c.trials = std::to_string(r.trials);
          if (v.kind == VariantKind::Control || v.kind == VariantKind::Observation)
            c.seen = std::to_string(r.reproduced) + " of " + std::to_string(r.trials);
        }
        if (r.seed) c.seed = std::to_string(*r.seed);
      }
      lines.push_back(std::move(c));
    }
  }
  for (const MeasurementGroup part : kPerfParts) {
    CaseLine c{"perf", std::string(to_string(part)), "measurement", Standing::NotRun, "NOT RUN"};
    const PerfRecord* record = nullptr;
    for (const PerfRecord& p : report.perf)
      if (p.part == part) record = &p;
    if (!record) {
      c.message = "did not run in run " + report.run.id;
      lines.push_back(std::move(c));
      continue;
    }
    c.seconds = record->duration_ms / 1000;
    c.type = std::string(to_string(record->status));
    c.outcome = upper(c.type);
    c.message = record->reason;
    c.standing = record->status == PerfStatus::Failed    ? Standing::Bad
                 : record->status == PerfStatus::Skipped ? Standing::NotRun
                                                         : Standing::Good;
    for (const perf::Check& check : record->checks) {
      if (check.missed() || (check.applicable && !check.decided())) {
        c.standing = Standing::Bad;  // CI reads an undecided threshold as a failure of the run
        c.type = check.missed() ? "threshold-missed" : "untrusted-measurement";
        c.message += (c.message.empty() ? "" : "; ") + check.description + ": " + check.detail();
      }
    }
    lines.push_back(std::move(c));
  }
  return lines;
}

const char* standing_class(Standing s) noexcept {
  switch (s) {
    case Standing::Good:
      return "good";
    case Standing::Bad:
      return "bad";
    case Standing::Undecided:
      return "warn";
    case Standing::NotRun:
      return "idle";
  }
  return "bad";
}

}  // namespace hazardlab
