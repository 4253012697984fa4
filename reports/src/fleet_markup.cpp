// The fleet report for people: fleet.md and fleet.html hold the same content, laid out once as
// plain text (headline, tables, lists) and then rendered in each markup.
#include <cstdio>
#include <sstream>

#include "hazardlab/fleet.hpp"
#include "markup_escape.hpp"

namespace hazardlab {
namespace {

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row_classes;  // the verdict, for colour in HTML
};

struct Section {
  std::string title;
  std::vector<std::string> bullets;
};

// Everything the two pages say, in order.
struct Content {
  std::string headline;              // counts per verdict
  std::vector<std::string> summary;  // sentences under it
  Table gpus;
  std::vector<Section> sections;
  Table runs;
};

std::string figure_text(const std::optional<double>& figure) {
  if (!figure) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", *figure);
  return text;
}

std::string flags_of(const FleetRow& row) {
  std::string flags;
  const auto add = [&](const std::string& flag) { flags += (flags.empty() ? "" : ", ") + flag; };
  if (row.partial) add("partial");
  if (row.profile != "validation") add(row.profile + " profile");
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

Content content_of(const FleetReport& report) {
  Content c;
  for (const auto& [verdict, count] : report.counts()) {
    c.headline += (c.headline.empty() ? "" : " · ") + std::string(to_string(verdict)) + " " + std::to_string(count);
  }
  c.summary.push_back(std::to_string(report.rows.size()) + " row(s) from " + std::to_string(report.runs.size()) +
                      " run(s); the newest run started " + report.newest_run_started_at + ". Generated " +
                      report.generated_at + " by hazardlab " + report.hazardlab_version + ".");
  c.summary.push_back(fleet_exit_status(report) == 0 ? "Exit status 0: every GPU passed."
                                                     : "Exit status 1: not every GPU passed (see the flags below).");
  c.gpus.headers = {"Host",    "PCI bus id", "GPU",      "UUID",     "nvidia-smi", "CUDA",        "Driver", "Verdict",
                    "Failing", "H2D GB/s",   "D2H GB/s", "Controls", "Run",        "Run started", "Flags"};
  for (const FleetRow& row : report.rows) {
    c.gpus.rows.push_back({row.host, row.has_gpu ? row.pci_bus_id : "(no GPU)", row.name + (row.mig ? " (MIG)" : ""),
                           row.uuid, row.nvidia_smi_index < 0 ? "-" : std::to_string(row.nvidia_smi_index),
                           row.cuda_index < 0 ? "-" : std::to_string(row.cuda_index), row.driver_release,
                           std::string(to_string(row.verdict)), failing_of(row), figure_text(row.pinned_h2d_gbps),
                           figure_text(row.pinned_d2h_gbps),
                           std::to_string(row.controls_reproduced) + "/" + std::to_string(row.controls_run), row.run_id,
                           row.run_started_at, flags_of(row)});
    c.gpus.row_classes.push_back(std::string(to_string(row.verdict)));
  }
  c.sections = {details(report), rules(report)};
  if (!report.notes.empty()) c.sections.push_back({"Notes", report.notes});
  c.runs.headers = {"Run", "Host", "Started", "Complete", "Rows shown", "Unreadable results", "Folder"};
  for (const MergedRun& r : report.runs) {
    std::string unreadable;
    for (const std::string& u : r.unreadable) unreadable += (unreadable.empty() ? "" : " ") + u;
    c.runs.rows.push_back({r.id, r.host, r.started_at, r.complete ? "yes" : "no", std::to_string(r.rows_shown),
                           unreadable, r.folder.string()});
    c.runs.row_classes.push_back("");
  }
  return c;
}

std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : text)
    out += c == '|' ? std::string("\\|") : c == '\n' || c == '\r' ? std::string(" ") : std::string(1, c);
  return out.empty() ? " " : out;
}

void md_table(std::ostringstream& md, const Table& t) {
  md << '|';
  for (const std::string& h : t.headers) md << ' ' << h << " |";
  md << "\n|";
  for (std::size_t i = 0; i < t.headers.size(); ++i) md << "---|";
  md << '\n';
  for (const auto& row : t.rows) {
    md << '|';
    for (const std::string& cell : row) md << ' ' << md_cell(cell) << " |";
    md << '\n';
  }
}

void html_table(std::ostringstream& html, const Table& t) {
  html << "<div style='overflow-x:auto'><table>\n<tr>";  // wide fleets scroll inside the box
  for (const std::string& h : t.headers) html << "<th>" << escape_markup(h) << "</th>";
  html << "</tr>\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    html << "<tr class='" << escape_markup(t.row_classes[r]) << "'>";
    for (const std::string& cell : t.rows[r]) html << "<td>" << escape_markup(cell) << "</td>";
    html << "</tr>\n";
  }
  html << "</table></div>\n";
}

}  // namespace

std::string fleet_to_markdown(const FleetReport& report) {
  const Content c = content_of(report);
  std::ostringstream md;
  md << "# hazardlab fleet report\n\n**" << c.headline << "**\n\n";
  for (const std::string& line : c.summary) md << md_cell(line) << "\n\n";
  md_table(md, c.gpus);
  for (const Section& s : c.sections) {
    md << "\n## " << s.title << "\n\n";
    for (const std::string& b : s.bullets) md << "- " << md_cell(b) << '\n';
  }
  md << "\n## Runs read\n\n";
  md_table(md, c.runs);
  return md.str();
}

std::string fleet_to_html(const FleetReport& report) {
  const Content c = content_of(report);
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
       << "<title>hazardlab fleet report</title>\n<style>\n"
       << "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;font-size:0.9em}"
       << "th,td{border:1px solid #ccc;padding:0.25em 0.5em;text-align:left}th{background:#eee}"
       << "tr.PASS td{background:#e8f5e9}tr.FAIL td{background:#ffebee}tr.INCONCLUSIVE td{background:#fff3e0}"
       << "tr.PARTIAL td{background:#fffde7}tr.SKIPPED td{background:#f5f5f5}\n"
       << "</style>\n</head>\n<body>\n<h1>hazardlab fleet report</h1>\n<p><b>" << escape_markup(c.headline)
       << "</b></p>\n";
  for (const std::string& line : c.summary) html << "<p>" << escape_markup(line) << "</p>\n";
  html_table(html, c.gpus);
  for (const Section& s : c.sections) {
    html << "<h2>" << escape_markup(s.title) << "</h2>\n<ul>\n";
    for (const std::string& b : s.bullets) html << "<li>" << escape_markup(b) << "</li>\n";
    html << "</ul>\n";
  }
  html << "<h2>Runs read</h2>\n";
  html_table(html, c.runs);
  html << "</body>\n</html>\n";
  return html.str();
}

}  // namespace hazardlab
