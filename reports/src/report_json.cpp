// A GPU's report as JSON (reports/SCHEMA.md, reports/schema/gpu-report.schema.json): the report whole, with what
// the run was as far as this GPU's report needs it.
#include "hazardlab/report.hpp"

namespace hazardlab {

namespace {

constexpr const char* kNotRun = "not-run";

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
