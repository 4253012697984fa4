// A GPU's report, laid out once: the verdict, what the run was, every case's outcome, the device,
// the measurements, the race windows, the verified copies, every hazard's lesson, and how to read it.
#include "gpu_content.hpp"

namespace hazardlab {
namespace {

// The verdicts' and rows' colours; the rest is the style every page shares (document.cpp).
constexpr const char* kStyle =
    ".PASS,.good{background:#d9f2d9}.FAIL,.bad{background:#f8d0d0}.INCONCLUSIVE,.warn{background:#fcefc7}"
    ".SKIPPED,.PARTIAL,.idle{background:#eee}";

// What the run was: its id, complete or partial (and what did not run), the selection, the settings.
void add_run(doc::Document& d, const GpuReport& report) {
  const RunRecord& run = report.run;
  doc::Text t = "Run " + doc::code(run.id) + ", started " + run.started_at +
                (run.ended_at.empty() ? "" : ", ended " + run.ended_at) + ". ";
  if (report.complete()) {
    d.paragraph(t + doc::strong("Complete") + ": " +
                (report.device ? "every registered case ran on this GPU."
                               : "every registered case was recorded (skipped: no usable GPU)."));
  } else {
    d.paragraph(t + doc::strong("Partial") + ": " + std::to_string(report.not_run.size()) +
                " registered case(s) did not run on this GPU, so this report does not replace the last complete one.");
    std::vector<doc::Item> names;
    for (const std::string& name : report.not_run) names.push_back({doc::code(name), {}});
    d.folded("Did not run", std::move(names));
  }
  doc::Text selection = "Selection: " + std::string(run.selection.all() ? "all cases" : "filtered by");
  for (const std::string& f : run.selection.filters) selection += " " + doc::code(f);
  if (!run.sanitizer.empty()) selection += "; under compute-sanitizer " + doc::code(run.sanitizer);
  d.paragraph(selection + ".");
  doc::Text settings = "Settings in force:";
  for (const RecordedSetting& s : run.settings) {
    settings += " " + doc::code(s.name + '=' + s.value) + (s.from_environment ? " (set)" : "") +
                (s.note.empty() ? "" : " (" + s.note + ")") + ";";
  }
  d.paragraph(settings);
  for (const std::string& w : run.warnings) d.note("Warning: " + w);
  std::string totals = "Totals:";
  for (const auto& [outcome, count] : report.totals.outcomes) totals += " " + std::string(to_string(outcome)) + " " + std::to_string(count) + ";";
  if (report.totals.not_run) totals += " not-run " + std::to_string(report.totals.not_run) + ";";
  d.paragraph(totals);
}

void add_results(doc::Document& d, const GpuReport& report) {
  d.heading("Results");
  doc::Table t;
  t.headers = {"Hazard", "Variant", "Kind", "Outcome", "Trials", "Hazard seen", "Seed"};
  for (const CaseLine& c : case_lines(report))
    t.add({c.group, c.name, c.kind, c.outcome, c.trials, c.seen, c.seed}, standing_class(c.standing));
  d.table(std::move(t));
}

doc::Document gpu_document(const GpuReport& report) {
  const std::string gpu = report.device ? "GPU " + std::to_string(report.device->index) + ": " + report.device->name
                                        : std::string("no GPU");
  doc::Document d{"hazardlab report: " + gpu, kStyle, {}};
  const std::string verdict(to_string(report.verdict));
  d.paragraph(doc::strong("Verdict: " + verdict) + ": " + report.verdict_reason + ".", "verdict " + verdict);
  d.paragraph("Generated " + report.generated_at + " on host " + doc::code(report.host) + " by hazardlab " +
              report.hazardlab_version + " (report schema " + kReportSchema + " version " +
              std::to_string(kReportSchemaVersion) + ").");
  add_run(d, report);
  add_results(d, report);
  add_device(d, report);
  add_performance(d, report);
  add_race_windows(d, report);
  add_soak(d, report);
  add_hazards(d, report);
  add_how_to_read(d);
  return d;
}

}  // namespace

std::string report_to_markdown(const GpuReport& report) { return doc::to_markdown(gpu_document(report)); }

std::string report_to_html(const GpuReport& report) { return doc::to_html(gpu_document(report)); }

}  // namespace hazardlab
