#include "hazardlab/report.hpp"

#include <algorithm>

#include "hazardlab/results_layout.hpp"

namespace hazardlab {
namespace {

constexpr const char* kNotRun = "not-run";

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

std::string_view to_string(Verdict v) noexcept {
  switch (v) {
    case Verdict::Pass:
      return "PASS";
    case Verdict::Fail:
      return "FAIL";
    case Verdict::Inconclusive:
      return "INCONCLUSIVE";
    case Verdict::Partial:
      return "PARTIAL";
    case Verdict::Skipped:
      return "SKIPPED";
  }
  return "?";
}

int Totals::of(Outcome o) const noexcept {
  const auto it = outcomes.find(o);
  return it == outcomes.end() ? 0 : it->second;
}

std::string GpuReport::file_stem() const { return device_label(device ? device->index : -1); }

std::pair<Verdict, std::string> decide_verdict(const VerdictInput& in) {
  int bad = 0, undecided = 0, good = 0, skipped = 0;
  for (const auto& [outcome, count] : in.totals.outcomes) {
    switch (standing_of(outcome)) {
      case Standing::Good:
        good += count;
        break;
      case Standing::Bad:
        bad += count;
        break;
      case Standing::Undecided:
        undecided += count;
        break;
      case Standing::NotRun:
        skipped += count;
        break;
    }
  }
  const int not_run = in.totals.not_run;
  const std::string partial =
      not_run ? "; " + std::to_string(not_run) + " registered case(s) did not run in this run" : "";
  if (!in.has_device && in.require_gpu) {
    return {Verdict::Fail, "no usable GPU, and HAZARDLAB_REQUIRE_GPU=1 requires one"};
  }
  if (bad || in.failed_checks || in.failed_measurements) {
    std::string why;
    if (bad) why = std::to_string(bad) + " case(s) failed, gave wrong data or missed their hazard";
    if (in.failed_checks) {
      why += (why.empty() ? "" : "; ") + std::to_string(in.failed_checks) + " validation threshold(s) missed";
    }
    if (in.failed_measurements) {
      why += (why.empty() ? "" : "; ") + std::to_string(in.failed_measurements) + " performance measurement(s) failed";
    }
    return {Verdict::Fail, why + partial};
  }
  if (undecided || in.untrusted_checks) {
    std::string why;
    if (undecided) why = std::to_string(undecided) + " case(s) could not decide";
    if (in.untrusted_checks) {
      why += (why.empty() ? "" : "; ") + std::to_string(in.untrusted_checks) +
             " validation threshold(s) measured beside other work, so no verdict on them";
    }
    return {Verdict::Inconclusive, why + partial};
  }
  // What held, said of everything registered or only of what ran.
  const auto held = [&](bool all) {
    std::string what;
    if (good) {
      what = all ? "every positive control reproduced its hazard and every guard and rule held"
                 : "every positive control that ran reproduced its hazard and every guard and rule that ran held";
    }
    if (in.measured) {
      what += std::string(what.empty() ? "" : "; ") + std::to_string(in.measured) +
              " performance measurement(s) taken" +
              (in.passed_checks ? " and every applicable validation threshold met" : "");
    }
    if (skipped) what += (what.empty() ? "" : "; ") + std::to_string(skipped) + " case(s) not applicable here";
    return what;
  };
  if (not_run) {
    const std::string what = held(false);
    return {Verdict::Partial, "not every registered case ran: " + std::to_string(not_run) +
                                  " did not run, so this is no verdict on them" +
                                  (what.empty() ? std::string() : "; " + what)};
  }
  if (!good && !in.measured) {
    return {Verdict::Skipped, in.has_device ? "no case ran" : "no usable GPU: every GPU case was skipped"};
  }
  return {Verdict::Pass, held(true)};
}

std::vector<GpuReport> build_reports(const RunContents& contents, bool require_gpu) {
  const auto finish = [&](GpuReport& r, bool has_device) {
    VerdictInput in{r.totals, has_device, require_gpu};
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

namespace {

// What the run was, as far as this GPU's report needs it: enough to tell a complete validation
// run from a one-case lab run, and to repeat it.
nlohmann::json run_summary(const GpuReport& report) {
  const RunRecord& run = report.run;
  nlohmann::json settings = nlohmann::json::object();
  for (const RecordedSetting& s : run.settings) {
    settings[s.name] = {{"value", s.value}, {"from_environment", s.from_environment}};
    if (!s.note.empty()) settings[s.name]["note"] = s.note;
  }
  return {{"id", run.id},
          {"started_at", run.started_at},
          {"ended_at", run.ended_at.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.ended_at)},
          {"complete", report.complete()},
          {"run_complete", run.complete},
          {"not_run", report.not_run},
          {"selection", {{"all", run.selection.all()}, {"filters", run.selection.filters}}},
          {"sanitizer", run.sanitizer.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.sanitizer)},
          {"settings", settings},
          {"warnings", run.warnings}};
}

nlohmann::json totals_json(const Totals& totals) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [outcome, count] : totals.outcomes) j[std::string(to_string(outcome))] = count;
  if (totals.not_run) j[kNotRun] = totals.not_run;
  return j;
}

nlohmann::json race_windows_json(const std::vector<RaceWindowEntry>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (const RaceWindowEntry& e : entries) {
    const auto headline = e.window.headline_us();
    out.push_back(
        {{"hazard", e.hazard_id},
         {"profile", e.window.profile},
         {"headline_series", e.window.series.empty() ? "" : e.window.series[e.window.headline_series].label()},
         {"full_reproduction_from_us", headline ? nlohmann::json(*headline) : nlohmann::json(nullptr)},
         {"summary", e.window.summary()},
         {"gate_note", e.gate_note}});
  }
  return out;
}

}  // namespace

nlohmann::json report_to_json(const GpuReport& report) {
  nlohmann::json hazards = nlohmann::json::array();
  for (const HazardEntry& he : report.hazards) {
    const CatalogHazard& h = he.hazard;
    nlohmann::json variants = nlohmann::json::array();
    for (const VariantEntry& v : he.variants) {
      nlohmann::json jv = v.result ? nlohmann::json(*v.result) : nlohmann::json{{"outcome", kNotRun}};
      jv["variant"] = v.id;
      jv["kind"] = std::string(to_string(v.kind));
      jv["title"] = v.title;
      jv.erase("hazard");
      variants.push_back(std::move(jv));
    }
    hazards.push_back({{"id", h.id},
                       {"title", h.title},
                       {"rules", h.rules},
                       {"requirements", h.requirements},
                       {"explanation", h.explanation},
                       {"variants", variants}});
  }
  return {{"schema", kReportSchema},
          {"schema_version", kReportSchemaVersion},
          {"hazardlab_version", report.hazardlab_version},
          {"generated_at", report.generated_at},
          {"host", report.host},
          {"device", report.device ? nlohmann::json(*report.device) : nlohmann::json(nullptr)},
          {"no_device_reason", report.no_device_reason},
          {"run", run_summary(report)},
          {"verdict", std::string(to_string(report.verdict))},
          {"verdict_reason", report.verdict_reason},
          {"totals", totals_json(report.totals)},
          {"hazards", hazards},
          {"performance", report.perf},
          {"unknown_results", report.unknown_results},
          {"race_windows", race_windows_json(race_windows(report))}};
}

}  // namespace hazardlab
