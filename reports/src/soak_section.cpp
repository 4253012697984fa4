#include "soak_section.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "markup_escape.hpp"

namespace hazardlab {
namespace {

std::string fixed(const char* format, double v) {
  char text[48];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

// The soak records of the report, defensively: another version's record may lack fields.
std::vector<std::pair<std::string, const nlohmann::json*>> soaks(const GpuReport& report) {
  std::vector<std::pair<std::string, const nlohmann::json*>> found;
  for (const PerfRecord& p : report.perf) {
    if (p.measurements.is_object() && p.measurements.contains("soak") && p.measurements["soak"].is_object())
      found.emplace_back(p.part, &p.measurements["soak"]);
  }
  return found;
}

std::string throughput_plot(const nlohmann::json& samples) {
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  double end = 1, top = 1;
  for (const auto& s : samples) {
    if (!s.is_object() || !s.contains("t_s") || !s.contains("gbps")) continue;
    const double t = s["t_s"].get<double>(), g = s["gbps"].get<double>();
    series[s.value("copy", "")].push_back({t, g});
    end = std::max(end, t);
    top = std::max(top, g);
  }
  if (series.empty()) return {};
  top = std::ceil(top * 1.1 / 10) * 10;
  constexpr double W = 720, H = 320, L = 60, R = 190, T = 30, B = 50;
  const auto x = [&](double t) { return L + t / end * (W - L - R); };
  const auto y = [&](double g) { return H - B - g / top * (H - T - B); };
  static const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H
      << "' role='img' aria-label='soak throughput over time'><text x='" << L
      << "' y='18' font-weight='bold'>Throughput over time (GB/s)</text>";
  for (int i = 0; i <= 5; ++i) {
    svg << "<line x1='" << L << "' x2='" << W - R << "' y1='" << y(top * i / 5) << "' y2='" << y(top * i / 5)
        << "' stroke='#ddd'/><text x='" << L - 6 << "' y='" << y(top * i / 5) + 4
        << "' text-anchor='end' font-size='11'>" << fixed("%.0f", top * i / 5) << "</text>";
    svg << "<text x='" << x(end * i / 5) << "' y='" << H - B + 16 << "' text-anchor='middle' font-size='11'>"
        << fixed("%.0f s", end * i / 5) << "</text>";
  }
  int row = 0;
  for (const auto& [copy, points] : series) {
    const char* colour = colours[row % std::size(colours)];
    std::ostringstream path;
    for (std::size_t i = 0; i < points.size(); ++i)
      path << (i ? " L" : "M") << x(points[i].first) << ' ' << y(points[i].second);
    svg << "<path d='" << path.str() << "' fill='none' stroke='" << colour << "' stroke-width='1.5'/>"
        << "<text x='" << W - R + 10 << "' y='" << T + 14 * row + 10 << "' font-size='11' fill='" << colour << "'>"
        << escape_markup(copy) << "</text>";
    ++row;
  }
  svg << "</svg>";
  return svg.str();
}

}  // namespace

void soak_markdown(std::ostringstream& md, const GpuReport& report) {
  for (const auto& [part, soak] : soaks(report)) {
    md << "\n## Verified copies (" << part << ")\n\n"
       << fixed("%.1f s, ", soak->value("seconds", 0.0)) << soak->value("rounds", 0) << " round(s), "
       << soak->value("churns", 0) << " churn(s) of the pinned and registered buffers, "
       << (soak->value("bytes_per_copy", std::size_t{0}) >> 20) << " MiB per copy.\n\n"
       << "| Copy | Copies | Bytes verified | Corrupted |\n|---|---|---|---|\n";
    for (const auto& t : soak->value("copies", nlohmann::json::array())) {
      md << "| " << t.value("copy", "") << " | " << t.value("copies", 0) << " | "
         << t.value("bytes_verified", std::uint64_t{0}) << " | " << t.value("corrupted", 0) << " |\n";
    }
    const auto errors = soak->value("errors", nlohmann::json::array());
    md << '\n' << (errors.empty() ? "No copy was corrupted.\n" : "Corrupted copies:\n\n");
    for (const auto& e : errors) md << "- " << e.get<std::string>() << '\n';
  }
}

std::string soak_html(const GpuReport& report) {
  std::ostringstream html;
  for (const auto& [part, soak] : soaks(report)) {
    html << "<h2>Verified copies (" << escape_markup(part) << ")</h2><p>" << fixed("%.1f s, ", soak->value("seconds", 0.0))
         << soak->value("rounds", 0) << " round(s), " << soak->value("churns", 0)
         << " churn(s) of the pinned and registered buffers.</p><table><tr><th>Copy</th><th>Copies</th>"
            "<th>Bytes verified</th><th>Corrupted</th></tr>";
    for (const auto& t : soak->value("copies", nlohmann::json::array())) {
      html << "<tr><td>" << escape_markup(t.value("copy", "")) << "</td><td>" << t.value("copies", 0) << "</td><td>"
           << t.value("bytes_verified", std::uint64_t{0}) << "</td><td>" << t.value("corrupted", 0) << "</td></tr>";
    }
    html << "</table>";
    const auto errors = soak->value("errors", nlohmann::json::array());
    html << (errors.empty() ? "<p>No copy was corrupted.</p>" : "<p>Corrupted copies:</p><ul>");
    for (const auto& e : errors) html << "<li>" << escape_markup(e.get<std::string>()) << "</li>";
    if (!errors.empty()) html << "</ul>";
    html << throughput_plot(soak->value("samples", nlohmann::json::array()));
  }
  return html.str();
}

}  // namespace hazardlab
