// The race-window sections of a GPU's report: for each hazard with a sweep result, its headline, its
// curves (a table, and a plot in HTML) and the tutorial's demo beside them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "gpu_content.hpp"
#include "hazardlab/number_text.hpp"

namespace hazardlab {
namespace {

std::string percent(int reproduced, int trials) {
  return number_text("%.0f%%", trials > 0 ? 100.0 * reproduced / trials : 0.0);
}

// The share of trials in which the hazard showed against the delay, one line per curve; diamonds: the
// PyTorch tutorial's own demo, replayed here.
doc::Plot window_plot(const RaceWindow& w) {
  doc::Plot plot;
  plot.description = "reproduction rate against delay";
  plot.x_label = "sleep queued ahead (log scale)";
  plot.x_scale = doc::Plot::Scale::Log1p;
  plot.height = 300;
  double top_us = 1;
  for (const WindowSeries& s : w.series)
    for (const WindowPoint& p : s.points) top_us = std::max(top_us, p.delay_us);
  plot.x_max = top_us;
  for (int i = 0; i <= 4; ++i) plot.y_ticks.push_back({i / 4.0, std::to_string(i * 25) + "%"});
  for (double us : {0.0, 1.0, 10.0, 100.0, 1000.0, 10000.0})
    if (us <= top_us) plot.x_ticks.push_back({us, format_delay_us(us)});
  for (const WindowSeries& s : w.series) {
    doc::Plot::Series line;
    line.name = s.label();
    for (const WindowPoint& p : s.points)
      line.points.push_back({p.delay_us, p.rate(),
                             s.label() + ", " + format_delay_us(p.delay_us) + ": " + std::to_string(p.reproduced) +
                                 " of " + std::to_string(p.trials)});
    plot.series.push_back(std::move(line));
  }
  for (const TutorialDemo& d : w.demos)
    plot.markers.push_back(
        {d.delay_ahead_us, d.rate(),
         "tutorial: " + d.code + ": " + std::to_string(d.reproduced) + " of " + std::to_string(d.trials)});
  return plot;
}

}  // namespace

void add_race_windows(doc::Document& d, const GpuReport& report) {
  const auto entries = race_windows(report);
  if (entries.empty()) return;
  d.heading("Race window");
  d.paragraph(
      "With no gate, only a sleep kernel of the given length queued ahead of the racing work: how often the "
      "hazard showed. An observation, never part of the verdict. \"Achieved\" is the sleep measured with "
      "CUDA events (median). The headline is the smallest delay from which every trial at every larger delay "
      "reproduced.");
  for (const RaceWindowEntry& e : entries) {
    const RaceWindow& w = e.window;
    d.subheading(e.hazard_id + " (" + w.profile + ", " + std::to_string(w.trials_per_point) + " trials a point)");
    d.paragraph(w.summary() + (e.gate_note.empty() ? "" : " " + e.gate_note));
    d.plot(window_plot(w));
    doc::Table t;
    t.headers = {"Delay", "Achieved"};
    for (const WindowSeries& s : w.series) t.headers.push_back(s.label());
    // One row per delay any curve measured (they normally share one grid).
    std::set<double> delays;
    for (const WindowSeries& s : w.series)
      for (const WindowPoint& p : s.points) delays.insert(p.delay_us);
    for (const double delay : delays) {
      std::vector<doc::Text> row = {format_delay_us(delay), "-"};
      for (const WindowSeries& s : w.series) {
        const auto p =
            std::find_if(s.points.begin(), s.points.end(), [&](const WindowPoint& q) { return q.delay_us == delay; });
        if (p == s.points.end()) {
          row.push_back("-");
          continue;
        }
        if (row[1].spans.front().text == "-") row[1] = format_delay_us(p->achieved_delay_us);
        row.push_back(std::to_string(p->reproduced) + '/' + std::to_string(p->trials));
      }
      t.add(std::move(row));
    }
    d.table(std::move(t));
    for (const TutorialDemo& demo : w.demos) {
      d.paragraph(
          "The tutorial's demo, " + doc::code(demo.code) + " (" + format_bytes(demo.bytes) + ", " +
          std::string(to_string(demo.action)) +
          (demo.sleep_after_copy ? ", _sleep of " + format_delay_us(demo.sleep_us_here) + " after the copy" : "") +
          "): " + std::to_string(demo.reproduced) + "/" + std::to_string(demo.trials) + " (" +
          percent(demo.reproduced, demo.trials) + ")" + (demo.elsewhere.empty() ? "" : "; " + demo.elsewhere) + ".");
    }
  }
}

}  // namespace hazardlab
