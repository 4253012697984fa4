// The soak's section of a GPU's report (and the health profile's integrity part): per copy the
// copies and bytes verified, every corrupted copy with its first bad offset and what the damage looks
// like, and (HTML) the throughput over time, one line per copy.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "gpu_content.hpp"
#include "hazardlab/number_text.hpp"

namespace hazardlab {
namespace {

// Throughput over time, one line per copy.
doc::Plot throughput_plot(const std::vector<soak::SoakSample>& samples) {
  doc::Plot plot;
  plot.title = "Throughput over time (GB/s)";
  plot.description = "soak throughput over time";
  plot.x_label = "time";
  plot.width = 720;
  std::map<std::string, doc::Plot::Series> series;
  double end = 1, top = 1;
  for (const soak::SoakSample& s : samples) {
    doc::Plot::Series& line = series[s.copy];
    line.name = s.copy;
    line.dots = false;  // hundreds of samples a copy: the line is the figure, the table beside it the numbers
    line.points.push_back({s.t_s, s.gbps, ""});
    end = std::max(end, s.t_s);
    top = std::max(top, s.gbps);
  }
  for (auto& [copy, line] : series) plot.series.push_back(std::move(line));
  plot.x_max = end;
  plot.y_max = std::ceil(top * 1.1 / 10) * 10;
  for (int i = 0; i <= 5; ++i) {
    plot.y_ticks.push_back({plot.y_max * i / 5, number_text("%.0f", plot.y_max * i / 5)});
    plot.x_ticks.push_back({end * i / 5, number_text("%.0f s", end * i / 5)});
  }
  return plot;
}

}  // namespace

void add_soak(doc::Document& d, const GpuReport& report) {
  for (const PerfRecord& p : report.perf) {
    if (!p.measurements.soak) continue;
    const soak::SoakResult& r = *p.measurements.soak;
    d.heading("Verified copies (" + std::string(to_string(p.part)) + ")");
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
