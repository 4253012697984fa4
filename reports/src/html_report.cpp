// The per-GPU report as one self-contained HTML page: tables, and plots drawn as inline SVG so
// that it opens in any browser with nothing else to load.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "hazardlab/report.hpp"
#include "markup_escape.hpp"
#include "number_text.hpp"
#include "race_window_section.hpp"
#include "soak_section.hpp"

namespace hazardlab {
namespace {

std::string escape(std::string_view text) { return escape_markup(text); }

std::string size_label(double bytes) {
  if (bytes >= 1 << 30) return number_text("%.0f GiB", bytes / (1 << 30));
  if (bytes >= 1 << 20) return number_text("%.0f MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return number_text("%.0f KiB", bytes / (1 << 10));
  return number_text("%.0f B", bytes);
}

const char* colour_of(const std::string& kind) {
  static const std::map<std::string, const char*> colours{
      {"pinned", "#1f77b4"}, {"pageable", "#d62728"}, {"registered", "#2ca02c"}, {"write-combined", "#9467bd"}};
  const auto it = colours.find(kind);
  return it == colours.end() ? "#7f7f7f" : it->second;
}

// Bandwidth against size on a log2 axis, one line per host memory kind, the link's raw rate dashed.
std::string bandwidth_plot(const nlohmann::json& points, const std::string& direction, double link) {
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  double lo = 1e30, hi = 0, top = link;
  for (const auto& b : points) {
    if (b["direction"] != direction) continue;
    const double bytes = b["bytes"].get<double>(), gbps = b["median_gbps"].get<double>();
    series[b["host_memory"].get<std::string>()].push_back({bytes, gbps});
    lo = std::min(lo, bytes);
    hi = std::max(hi, bytes);
    top = std::max(top, gbps);
  }
  if (series.empty()) return {};
  top = std::ceil(top * 1.1 / 10) * 10;
  constexpr double W = 640, H = 320, L = 60, R = 150, T = 30, B = 50;
  const double x0 = std::log2(lo), x1 = std::max(std::log2(hi), x0 + 1);
  const auto x = [&](double bytes) { return L + (std::log2(bytes) - x0) / (x1 - x0) * (W - L - R); };
  const auto y = [&](double gbps) { return H - B - gbps / top * (H - T - B); };
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H << "' role='img' aria-label='"
      << (direction == "h2d" ? "host to device" : "device to host") << " bandwidth against size'>"
      << "<text x='" << L << "' y='18' font-weight='bold'>"
      << (direction == "h2d" ? "Host to device" : "Device to host") << " bandwidth (GB/s, median)</text>";
  for (int i = 0; i <= 5; ++i) {
    const double v = top * i / 5;
    svg << "<line x1='" << L << "' x2='" << W - R << "' y1='" << y(v) << "' y2='" << y(v)
        << "' stroke='#ddd'/><text x='" << L - 6 << "' y='" << y(v) + 4 << "' text-anchor='end' font-size='11'>"
        << number_text("%.0f", v) << "</text>";
  }
  for (double e = std::ceil(x0); e <= x1; e += 2) {
    const double bytes = std::pow(2.0, e);
    svg << "<text x='" << x(bytes) << "' y='" << H - B + 16 << "' text-anchor='middle' font-size='11'>"
        << size_label(bytes) << "</text>";
  }
  svg << "<text x='" << (L + W - R) / 2 << "' y='" << H - 10
      << "' text-anchor='middle' font-size='12'>copy size</text>";
  if (link > 0) {
    svg << "<line x1='" << L << "' x2='" << W - R << "' y1='" << y(link) << "' y2='" << y(link)
        << "' stroke='#000' stroke-dasharray='6 4'/><text x='" << L + 6 << "' y='" << y(link) - 5
        << "' font-size='11'>PCIe link raw rate " << number_text("%.1f", link) << " GB/s</text>";
  }
  int row = 0;
  for (const auto& [kind, pts] : series) {
    std::ostringstream path;
    for (std::size_t i = 0; i < pts.size(); ++i) path << (i ? " L" : "M") << x(pts[i].first) << ' ' << y(pts[i].second);
    svg << "<path d='" << path.str() << "' fill='none' stroke='" << colour_of(kind) << "' stroke-width='2'/>";
    for (const auto& [bytes, gbps] : pts) {
      svg << "<circle cx='" << x(bytes) << "' cy='" << y(gbps) << "' r='3' fill='" << colour_of(kind) << "'><title>"
          << escape(kind) << ", " << size_label(bytes) << ": " << number_text("%.2f", gbps) << " GB/s</title></circle>";
    }
    const double ly = T + 60 + 18 * row++;
    svg << "<line x1='" << W - R + 6 << "' x2='" << W - R + 26 << "' y1='" << ly << "' y2='" << ly << "' stroke='"
        << colour_of(kind) << "' stroke-width='3'/><text x='" << W - R + 30 << "' y='" << ly + 4 << "' font-size='12'>"
        << escape(kind) << "</text>";
  }
  svg << "</svg>";
  return svg.str();
}

std::string overlap_matrix(const nlohmann::json& overlap) {
  std::ostringstream html;
  html << "<table><tr><th>Host memory</th><th>Same stream</th><th>Separate streams</th></tr>";
  for (const char* kind : {"pageable", "pinned"}) {
    html << "<tr><td>" << kind << "</td>";
    for (const char* streams : {"same", "separate"}) {
      for (const auto& o : overlap) {
        if (o["host_memory"] != kind || o["streams"] != streams) continue;
        const double f = o["fraction_hidden"].get<double>();
        html << "<td><div class='bar'><div style='width:" << number_text("%.0f", f * 100) << "%'></div></div>"
             << number_text("%.0f", f * 100) << "% hidden<br><small>kernel "
             << number_text("%.2f", o["kernel_ms"].get<double>()) << " ms, copy "
             << number_text("%.2f", o["copy_ms"].get<double>()) << " ms, together "
             << number_text("%.2f", o["both_ms"].get<double>()) << " ms</small></td>";
      }
    }
    html << "</tr>";
  }
  html << "</table>";
  return html.str();
}

// The row colour says how the outcome counts (standing_of); a case that did not run is idle.
std::string_view outcome_class(const std::optional<VariantResult>& result) {
  if (!result) return "idle";
  switch (standing_of(result->outcome)) {
    case Standing::Good:
      return "good";
    case Standing::NotRun:
      return "idle";
    case Standing::Undecided:
      return "warn";
    case Standing::Bad:
      return "bad";
  }
  return "bad";
}

}  // namespace

std::string report_to_html(const GpuReport& report) {
  const std::string title =
      report.device ? "GPU " + std::to_string(report.device->index) + ": " + report.device->name : "no GPU";
  const std::string verdict(to_string(report.verdict));
  std::ostringstream html;
  html << "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>hazardlab report: " << escape(title)
       << "</title><style>"
          "body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;"
          "vertical-align:top}th{background:#f4f4f4}.verdict{font-size:1.4em;padding:.4em .8em;display:inline-block}"
          ".PASS,.good{background:#d9f2d9}.FAIL,.bad{background:#f8d0d0}.INCONCLUSIVE,.warn{background:#fcefc7}"
          ".SKIPPED,.PARTIAL,.idle{background:#eee}.bar{background:#eee;width:160px;height:10px}.bar "
          "div{background:#1f77b4;"
          "height:10px}svg{margin:.5em 1em .5em 0;border:1px solid #eee}small{color:#555}"
          "</style></head><body>";
  html << "<h1>hazardlab report: " << escape(title) << "</h1><div class='verdict " << verdict
       << "'>Verdict: " << verdict << "</div><p>" << escape(report.verdict_reason) << ".</p><p><small>Generated "
       << escape(report.generated_at) << " on host " << escape(report.host) << " by hazardlab "
       << escape(report.hazardlab_version) << ".</small></p>";
  html << "<p>Run <code>" << escape(report.run.id) << "</code>: ";
  if (report.complete()) {
    html << "<b>complete</b>, "
         << (report.device ? "every registered case ran on this GPU."
                           : "every registered case was recorded (skipped: no usable GPU).")
         << "</p>";
  } else {
    html << "<b>partial</b>, " << report.not_run.size()
         << " registered case(s) did not run on this GPU; this report does not replace the last complete one."
            "</p><details><summary>Did not run</summary><ul>";
    for (const std::string& name : report.not_run) html << "<li><code>" << escape(name) << "</code></li>";
    html << "</ul></details>";
  }

  if (report.device) {
    const DeviceFingerprint& d = *report.device;
    html << "<h2>Device</h2><table><tr><th>Name</th><td>" << escape(d.name) << "</td></tr><tr><th>UUID</th><td>"
         << escape(d.uuid) << "</td></tr><tr><th>PCI bus id</th><td>" << escape(d.pci_bus_id)
         << "</td></tr><tr><th>nvidia-smi index</th><td>"
         << (d.nvidia_smi_index >= 0 ? std::to_string(d.nvidia_smi_index) : "?") << (d.mig ? " (MIG instance)" : "")
         << "</td></tr><tr><th>Compute capability</th><td>" << d.compute_capability()
         << "</td></tr><tr><th>Driver</th><td>" << escape(d.driver_release) << "</td></tr><tr><th>Copy engines</th><td>"
         << d.async_engine_count << "</td></tr><tr><th>PCIe link</th><td>";
    if (d.pcie.available) {
      html << "Gen" << d.pcie.max_generation << " x" << d.pcie.max_width << " at most ("
           << number_text("%.1f", d.pcie.max_raw_gbps_per_direction()) << " GB/s raw per direction)";
    } else {
      html << "unknown: " << escape(d.pcie.unavailable_reason);
    }
    html << "</td></tr></table>";
  } else {
    html << "<p>No usable GPU: " << escape(report.no_device_reason) << ".</p>";
  }

  if (!report.perf.empty()) {
    html << "<h2>Performance</h2><table><tr><th>Check</th><th>Result</th><th>Measured</th><th>Why this "
            "threshold</th></tr>";
    for (const PerfRecord& p : report.perf) {
      if (p.status != PerfStatus::Measured) {
        html << "<tr class='" << (p.status == PerfStatus::Skipped ? "idle" : "bad") << "'><td>" << escape(p.part)
             << " measurements</td><td>" << to_string(p.status) << "</td><td colspan='2'>" << escape(p.reason)
             << "</td></tr>";
      }
      for (const perf::Check& c : p.checks) {
        html << "<tr class='"
             << (!c.decided() ? "idle"
                 : c.passed   ? "good"
                              : "bad")
             << "'><td>" << escape(c.description) << "</td><td>" << c.result_word() << "</td><td>" << escape(c.detail())
             << "</td><td><small>" << escape(c.rationale) << "</small></td></tr>";
      }
    }
    html << "</table>";
    for (const PerfRecord& p : report.perf) {
      const auto& m = p.measurements;
      if (m.contains("bandwidth")) {
        const double link = m.value("link_raw_gbps_per_direction", 0.0);
        html << "<h3>Bandwidth (" << escape(p.profile) << " profile)</h3><div>"
             << bandwidth_plot(m["bandwidth"], "h2d", link) << bandwidth_plot(m["bandwidth"], "d2h", link) << "</div>";
        for (const auto& r : m.value("bidirectional", nlohmann::json::array())) {
          html << "<p>Bidirectional (nvbandwidth's method), " << escape(r["measured"].get<std::string>())
               << " measured at " << size_label(r["bytes"].get<double>()) << ": "
               << number_text("%.2f", r["median_gbps"].get<double>()) << " GB/s (CV "
               << number_text("%.1f", r["spread"].value("cv", 0.0) * 100) << "%).</p>";
        }
        if (m.contains("reference")) {
          html << "<h3>Beside nvbandwidth (same GPU, same case; median of " << m["reference"].value("runs_per_size", 1)
               << " runs)</h3><table><tr><th>Figure</th><th>Bytes</th>"
                  "<th>hazardlab GB/s</th><th>nvbandwidth GB/s</th><th>its runs</th><th>Ratio</th></tr>";
          for (const auto& f : m["reference"]["figures"]) {
            std::string runs;
            for (const auto& v : f.value("nvbandwidth_runs_gbps", nlohmann::json::array()))
              runs += (runs.empty() ? "" : ", ") + number_text("%.2f", v.get<double>());
            html << "<tr><td>" << escape(f["figure"].get<std::string>()) << "</td><td>"
                 << size_label(f["bytes"].get<double>()) << "</td><td>"
                 << number_text("%.2f", f["hazardlab_gbps"].get<double>()) << "</td><td>"
                 << number_text("%.2f", f["nvbandwidth_gbps"].get<double>()) << "</td><td>" << runs << "</td><td>"
                 << number_text("%.3f", f["ratio"].get<double>()) << "</td></tr>";
          }
          html << "</table>";
        }
        for (const auto& all : m.value("all_gpus_at_once", nlohmann::json::array())) {
          html << "<p><b>All GPUs at once</b> (" << escape(all["direction"].get<std::string>()) << ", "
               << size_label(all["bytes"].get<double>())
               << " per GPU): " << number_text("%.2f", all["total_gbps"].get<double>()) << " GB/s in total.</p>";
        }
      }
      if (m.contains("overlap")) html << "<h3>Copy/compute overlap</h3>" << overlap_matrix(m["overlap"]);
      if (m.contains("findings")) {
        html << "<h3>The tutorial's comparisons, measured here</h3><table><tr><th>Question</th><th>A</th><th>ms</th>"
                "<th>B</th><th>ms</th><th>B / A</th></tr>";
        for (const auto& f : m["findings"]) {
          html << "<tr><td>" << escape(f["question"].get<std::string>()) << "</td><td>"
               << escape(f["a"].get<std::string>()) << "</td><td>" << number_text("%.2f", f["a_ms"].get<double>())
               << "</td><td>" << escape(f["b"].get<std::string>()) << "</td><td>"
               << number_text("%.2f", f["b_ms"].get<double>()) << "</td><td>"
               << number_text("%.2f", f["b_over_a"].get<double>()) << "</td></tr>";
        }
        html << "</table>";
      }
    }
  }

  html << race_windows_html(report);
  html << soak_html(report);
  html << "<h2>Hazards</h2><table><tr><th>Hazard</th><th>Variant</th><th>Kind</th><th>Outcome</th><th>Trials</th>"
          "<th>Detail</th></tr>";
  for (const HazardEntry& he : report.hazards) {
    for (const VariantEntry& v : he.variants) {
      const std::string outcome = v.result ? std::string(to_string(v.result->outcome)) : "not-run";
      html << "<tr class='" << outcome_class(v.result) << "'><td title='" << escape(he.hazard.title) << "'>"
           << escape(he.hazard.id) << "</td><td title='" << escape(v.title) << "'>" << escape(v.id) << "</td><td>"
           << to_string(v.kind) << "</td><td>" << outcome << "</td><td>" << (v.result ? v.result->trials : 0)
           << "</td><td><small>" << escape(v.result ? v.result->reason : std::string()) << "</small></td></tr>";
    }
  }
  html << "</table><p><small>The Markdown and JSON reports beside this page hold the same results, the rules and "
          "explanations of every hazard, and the smallest failing case and seed of any failure.</small></p>"
          "</body></html>\n";
  return html.str();
}

}  // namespace hazardlab
