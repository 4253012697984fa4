// Every GPU's report built from a run folder's contents: each registered case of the run's profile with its result or
// none, the measurements, the race windows; its verdict from decide_verdict (verdict.cpp).
#include "hazardlab/report.hpp"

#include <algorithm>

#include "hazardlab/results_layout.hpp"

namespace hazardlab {
namespace {

bool control_reproduced(const HazardEntry& he) {
  for (const VariantEntry& v : he.variants)
    if (v.kind == VariantKind::Control && v.result && v.result->outcome == Outcome::Reproduced) return true;
  return false;
}

}  // namespace

std::vector<RaceWindowEntry> race_windows(const GpuReport& report) {
  std::vector<RaceWindowEntry> entries;
  for (const HazardEntry& he : report.hazards) {
    for (const VariantEntry& v : he.variants) {
      if (!v.result || !v.result->observations.race_window) continue;
      RaceWindowEntry e{he.hazard.id, he.hazard.title, *v.result->observations.race_window, {}};
      if (e.window.never_reproduced() && control_reproduced(he)) {
        e.gate_note =
            "The gated positive control reproduced this hazard in every trial, yet with no gate no delay "
            "up to the largest swept showed it once: on this GPU the race is real but its window is too "
            "narrow to hit by timing alone; the gate is what makes it visible.";
      }
      entries.push_back(std::move(e));
    }
  }
  return entries;
}

namespace {

GpuReport make_report(const RunContents& in, int device_index) {
  GpuReport report;
  report.generated_at = utc_now_iso8601();
  report.host = in.run.host.empty() ? host_name() : in.run.host;
  report.hazardlab_version =
      in.run.hazardlab_version.empty() ? std::string(hazardlab_version()) : in.run.hazardlab_version;
  report.run = in.run;
  // A health or soak run is made of its profile's cases: what it never meant to run is no gap in it.
  const auto in_profile = [&](const std::string& name) {
    return in.run.profile == RunProfile::Validation ||
           std::find(in.run.registered.begin(), in.run.registered.end(), name) != in.run.registered.end();
  };
  std::vector<bool> used(in.results.size(), false);
  for (const CatalogHazard& h : in.catalog.hazards) {
    HazardEntry entry{h, {}};
    for (const CatalogVariant& v : h.variants) {
      const std::string name = case_name(device_index, h.id, v.id);
      if (!in_profile(name)) continue;
      VariantEntry ve{v.id, v.kind, v.title, std::nullopt};
      for (std::size_t i = 0; i < in.results.size(); ++i) {
        const VariantResult& r = in.results[i];
        if (r.device_index == device_index && r.hazard_id == h.id && r.variant_id == v.id) {
          ve.result = r;
          used[i] = true;
        }
      }
      if (!ve.result) report.not_run.push_back(name);
      if (ve.result)
        ++report.totals.outcomes[ve.result->outcome];
      else
        ++report.totals.not_run;
      entry.variants.push_back(std::move(ve));
    }
    if (!entry.variants.empty()) report.hazards.push_back(std::move(entry));
  }
  for (std::size_t i = 0; i < in.results.size(); ++i) {
    if (!used[i] && in.results[i].device_index == device_index) {
      report.unknown_results.push_back(in.results[i]);
      ++report.totals.outcomes[in.results[i].outcome];
    }
  }
  if (const auto it = in.perf.find(device_index); it != in.perf.end()) report.perf = it->second;
  std::vector<std::string> parts;
  for (const MeasurementGroup g : kPerfParts) parts.emplace_back(to_string(g));
  if (in.run.profile != RunProfile::Validation) {
    parts.clear();
    const std::string prefix = measurement_name(device_index, "");
    for (const std::string& r : in.run.registered)
      if (r.rfind(prefix, 0) == 0) parts.push_back(r.substr(prefix.size()));
  }
  for (const std::string& part : parts) {
    const std::string name = measurement_name(device_index, part);
    // A registered name that is no group hazardlab knows cannot have run.
    const std::optional<MeasurementGroup> group = measurement_group_from_string(part);
    const bool ran = group && std::any_of(report.perf.begin(), report.perf.end(),
                                          [&](const PerfRecord& p) { return p.part == *group; });
    if (!ran) {
      report.not_run.push_back(name);
      ++report.totals.not_run;
    }
  }
  return report;
}

}  // namespace

int Totals::of(Outcome o) const noexcept {
  const auto it = outcomes.find(o);
  return it == outcomes.end() ? 0 : it->second;
}

std::string GpuReport::file_stem() const { return device_label(device ? device->index : -1); }

std::vector<GpuReport> build_reports(const RunContents& contents, bool require_gpu,
                                     const std::vector<std::string>& failed_cases,
                                     std::string_view require_gpu_given_as) {
  const auto finish = [&](GpuReport& r, bool has_device) {
    VerdictInput in{r.totals, has_device, require_gpu};
    in.require_gpu_given_as = require_gpu_given_as;
    in.failed_without_result = static_cast<int>(std::count_if(r.not_run.begin(), r.not_run.end(), [&](const auto& n) {
      return std::find(failed_cases.begin(), failed_cases.end(), n) != failed_cases.end();
    }));
    for (const PerfRecord& p : r.perf) {
      if (p.status == PerfStatus::Failed) ++in.failed_measurements;
      if (p.status == PerfStatus::Measured) ++in.measured;
      if (p.status == PerfStatus::Skipped) ++in.totals.outcomes[Outcome::Skipped];
      for (const perf::Check& c : p.checks) {
        in.failed_checks += c.missed();
        in.passed_checks += c.decided() && c.passed;
        in.untrusted_checks += c.applicable && !c.decided();
      }
    }
    std::tie(r.verdict, r.verdict_reason) = decide_verdict(in);
  };
  std::vector<GpuReport> reports;
  if (contents.inventory.devices.empty()) {
    GpuReport r = make_report(contents, -1);
    r.no_device_reason = contents.inventory.no_device_reason;
    finish(r, false);
    reports.push_back(std::move(r));
    return reports;
  }
  for (const DeviceFingerprint& d : contents.inventory.devices) {
    GpuReport r = make_report(contents, d.index);
    r.device = d;
    finish(r, true);
    reports.push_back(std::move(r));
  }
  return reports;
}

}  // namespace hazardlab
