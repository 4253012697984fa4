// The fleet report for people: fleet.md and fleet.html hold the same content, laid out once
// (document.hpp) and then rendered in each markup.
#include <cstdio>

#include "hazardlab/document.hpp"
#include "hazardlab/fleet.hpp"
#include "hazardlab/number_text.hpp"

namespace hazardlab {
namespace {

struct Section {
  std::string title;
  std::vector<std::string> bullets;
};

std::string figure_text(const std::optional<double>& figure) {
  if (!figure) return "-";
  return number_text("%.2f", *figure);
}

std::string flags_of(const FleetRow& row) {
  std::string flags;
  const auto add = [&](const std::string& flag) { flags += (flags.empty() ? "" : ", ") + flag; };
  if (row.partial) add("partial");
  if (row.profile != RunProfile::Validation) add(std::string(to_string(row.profile)) + " profile");
  if (row.stale) add("stale");
  if (row.outlier) add("outlier");
  if (row.superseded_runs) add(std::to_string(row.superseded_runs) + " other run(s)");
  for (const NewerPartialRun& p : row.newer_partial_runs) add("newer partial run " + std::string(to_string(p.verdict)));
  return flags;
}

std::string failing_of(const FleetRow& row) {
  std::string text;
  for (const auto* list : {&row.failing_cases, &row.failing_checks, &row.inconclusive_cases}) {
    for (const std::string& id : *list) text += (text.empty() ? "" : " ") + id;
  }
  return text;
}

Section details(const FleetReport& report) {
  Section s{"What the flags say", {}};
  for (const FleetRow& row : report.rows) {
    if (!row.has_gpu) s.bullets.push_back(row.key() + ": no usable GPU: " + row.no_device_reason);
    if (row.verdict != Verdict::Pass && row.has_gpu)
      s.bullets.push_back(row.key() + ": " + std::string(to_string(row.verdict)) + ": " + row.verdict_reason);
    if (row.stale) s.bullets.push_back(row.key() + ": stale: " + row.stale_reason);
    if (row.outlier) s.bullets.push_back(row.key() + ": outlier: " + row.outlier_reason);
    for (const NewerPartialRun& p : row.newer_partial_runs) {
      s.bullets.push_back(row.key() + ": a newer partial run, " + p.run_id + " (" + p.started_at + "), is " +
                          std::string(to_string(p.verdict)) + "; the row shows the latest complete run");
    }
  }
  if (s.bullets.empty()) s.bullets.push_back("nothing: every row passed, none is stale or an outlier");
  return s;
}

Section rules(const FleetReport& report) {
  char text[400];
  Section s{"Rules", {}};
  s.bullets.push_back(
      "One row per GPU (the same host and PCI bus id, or the same UUID), showing its latest run in which every case "
      "of that GPU ran; without one, its latest run, marked partial. The other runs seen are counted.");
  s.bullets.push_back("Stale: the run shown started more than " + std::to_string(report.stale_after_hours) +
                      " h before the newest run of the merge (" + report.newest_run_started_at + ").");
  std::snprintf(text, sizeof text,
                "Outlier: among GPUs of one model with the figure (at least %d of them), a pinned 256 MiB median "
                "more than %g scales below the model's median, where the scale is %g times the median absolute "
                "deviation (MAD), but at least %g%% of the median.",
                kMinGpusForOutliers, report.outlier_mads, kMadToSigma, kMadFloorShareOfMedian * 100);
  s.bullets.push_back(text);
  for (const ModelFigure& m : report.models) {
    std::snprintf(text, sizeof text, "%s, %s: %d GPU(s), median %.2f GB/s, MAD %.2f GB/s, scale %.2f GB/s",
                  m.model.c_str(), m.figure.c_str(), m.gpus, m.median_gbps, m.mad_gbps, m.scale_gbps);
    s.bullets.push_back(text + (m.tested ? std::string() : "; " + m.note));
  }
  s.bullets.push_back(
      "Exit status 0 only if every row is PASS, no newer partial run of a GPU failed or was "
      "inconclusive, and every result file of the runs shown could be read; 1 otherwise.");
  return s;
}

// The rows' colours by verdict; the rest is the style every page shares (document.cpp).
constexpr const char* kStyle =
    "table{font-size:0.9em}tr.PASS td{background:#e8f5e9}tr.FAIL td{background:#ffebee}tr.INCONCLUSIVE td{background:#fff3e0}"
    "tr.PARTIAL td{background:#fffde7}tr.SKIPPED td{background:#f5f5f5}";

// Everything the two pages say, in order.
doc::Document content_of(const FleetReport& report) {
  doc::Document d{"hazardlab fleet report", kStyle, {}};
  std::string headline;  // counts per verdict
  for (const auto& [verdict, count] : report.counts()) {
    headline += (headline.empty() ? "" : " · ") + std::string(to_string(verdict)) + " " + std::to_string(count);
  }
  d.paragraph(doc::strong(headline));
  d.paragraph(std::to_string(report.rows.size()) + " row(s) from " + std::to_string(report.runs.size()) +
              " run(s); the newest run started " + report.newest_run_started_at + ". Generated " + report.generated_at +
              " by hazardlab " + report.hazardlab_version + ".");
  d.paragraph(fleet_exit_status(report) == 0 ? "Exit status 0: every GPU passed."
                                             : "Exit status 1: not every GPU passed (see the flags below).");
  doc::Table gpus;
  gpus.headers = {"Host",    "PCI bus id", "GPU",      "UUID",     "nvidia-smi", "CUDA",        "Driver", "Verdict",
                  "Failing", "H2D GB/s",   "D2H GB/s", "Controls", "Run",        "Run started", "Flags"};
  for (const FleetRow& row : report.rows) {
    gpus.add({row.host, row.has_gpu ? row.pci_bus_id : "(no GPU)", row.name + (row.mig ? " (MIG)" : ""), row.uuid,
              row.nvidia_smi_index < 0 ? "-" : std::to_string(row.nvidia_smi_index),
              row.cuda_index < 0 ? "-" : std::to_string(row.cuda_index), row.driver_release,
              std::string(to_string(row.verdict)), failing_of(row), figure_text(row.pinned_h2d_gbps),
              figure_text(row.pinned_d2h_gbps),
              std::to_string(row.controls_reproduced) + "/" + std::to_string(row.controls_run), row.run_id,
              row.run_started_at, flags_of(row)},
             std::string(to_string(row.verdict)));  // the verdict, for colour in HTML
  }
  d.table(std::move(gpus));
  std::vector<Section> sections = {details(report), rules(report)};
  if (!report.notes.empty()) sections.push_back({"Notes", report.notes});
  for (const Section& s : sections) {
    d.heading(s.title);
    std::vector<doc::Item> items;
    for (const std::string& b : s.bullets) items.push_back({b, {}});
    d.list(std::move(items));
  }
  d.heading("Runs read");
  doc::Table runs;
  runs.headers = {"Run", "Host", "Started", "Complete", "Rows shown", "Unreadable results", "Folder"};
  for (const MergedRun& r : report.runs) {
    std::string unreadable;
    for (const std::string& u : r.unreadable) unreadable += (unreadable.empty() ? "" : " ") + u;
    runs.add({r.id, r.host, r.started_at, r.complete ? "yes" : "no", std::to_string(r.rows_shown), unreadable,
              r.folder.string()});
  }
  d.table(std::move(runs));
  return d;
}

}  // namespace

std::string fleet_to_markdown(const FleetReport& report) { return doc::to_markdown(content_of(report)); }

std::string fleet_to_html(const FleetReport& report) { return doc::to_html(content_of(report)); }

}  // namespace hazardlab
