// The soak's section of a GPU's report (and the health profile's integrity part): per copy the
// copies and bytes verified, every corrupted copy with its first bad offset and what the damage looks
// like, and (HTML) the throughput over time, one line per copy.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "gpu_content.hpp"
#include "markup_escape.hpp"
#include "number_text.hpp"

namespace hazardlab {
namespace {

std::string throughput_plot(const std::vector<soak::SoakSample>& samples) {
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  double end = 1, top = 1;
  for (const soak::SoakSample& s : samples) {
    series[s.copy].push_back({s.t_s, s.gbps});
    end = std::max(end, s.t_s);
    top = std::max(top, s.gbps);
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
        << "' text-anchor='end' font-size='11'>" << number_text("%.0f", top * i / 5) << "</text>";
    svg << "<text x='" << x(end * i / 5) << "' y='" << H - B + 16 << "' text-anchor='middle' font-size='11'>"
        << number_text("%.0f s", end * i / 5) << "</text>";
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

void add_soak(doc::Document& d, const GpuReport& report) {
  for (const PerfRecord& p : report.perf) {
    if (!p.measurements.soak) continue;
    const soak::SoakResult& r = *p.measurements.soak;
    d.heading("Verified copies (" + p.part + ")");
    d.paragraph(number_text("%.1f s (", r.seconds) + number_text("%.1f s past the duration), ", r.overshoot_s) +
                std::to_string(r.rounds) + " round(s), " + std::to_string(r.churns) +
                " churn(s) of the pinned and registered buffers, " + std::to_string(r.bytes >> 20) + " MiB per copy" +
                (r.fault_injected ? "; one byte was corrupted on purpose (HAZARDLAB_SOAK_INJECT_FAULT)." : "."));
    doc::Table t;
    t.headers = {"Copy", "Copies", "Bytes verified", "Corrupted"};
    for (const soak::CopyTally& c : r.tallies) {
      t.add({c.copy, std::to_string(c.copies), std::to_string(c.bytes_verified), std::to_string(c.corrupted)},
            c.corrupted ? "bad" : "");
    }
    d.table(std::move(t));
    d.paragraph(r.errors.empty() ? "No copy was corrupted." : "Corrupted copies:");
    std::vector<doc::Item> errors;
    for (const std::string& e : r.errors) errors.push_back({e, {}});
    if (!errors.empty()) d.list(std::move(errors));
    d.plot(throughput_plot(r.samples));
  }
}

}  // namespace hazardlab
