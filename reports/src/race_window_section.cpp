// The race-window sections of a GPU's report: for each hazard with a sweep result, its headline, its
// curves (a table, and a plot in HTML) and the tutorial's demo beside them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "gpu_content.hpp"
#include "markup_escape.hpp"

namespace hazardlab {
namespace {

const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

std::string percent(int reproduced, int trials) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", trials > 0 ? 100.0 * reproduced / trials : 0.0);
  return text;
}

// Delay on a log axis that still shows 0: log10(1 + microseconds).
double delay_axis(double us) { return std::log10(1.0 + us); }

// The share of trials in which the hazard showed against the delay, one line per curve; diamonds: the
// PyTorch tutorial's own demo, replayed here.
std::string window_plot(const RaceWindow& w) {
  std::ostringstream html;
  constexpr double W = 640, H = 300, L = 50, R = 190, T = 30, B = 45;
  double top_us = 1;
  for (const WindowSeries& s : w.series)
    for (const WindowPoint& p : s.points) top_us = std::max(top_us, p.delay_us);
  const double x1 = delay_axis(top_us);
  const auto x = [&](double us) { return L + delay_axis(us) / x1 * (W - L - R); };
  const auto y = [&](double rate) { return H - B - rate * (H - T - B); };
  html << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H
       << "' role='img' aria-label='reproduction rate against delay'>";
  for (int i = 0; i <= 4; ++i) {
    html << "<line x1='" << L << "' x2='" << W - R << "' y1='" << y(i / 4.0) << "' y2='" << y(i / 4.0)
         << "' stroke='#ddd'/><text x='" << L - 6 << "' y='" << y(i / 4.0) + 4
         << "' text-anchor='end' font-size='11'>" << i * 25 << "%</text>";
  }
  for (double us : {0.0, 1.0, 10.0, 100.0, 1000.0, 10000.0}) {
    if (us > top_us) break;
    html << "<text x='" << x(us) << "' y='" << H - B + 16 << "' text-anchor='middle' font-size='11'>"
         << format_delay_us(us) << "</text>";
  }
  html << "<text x='" << (L + W - R) / 2 << "' y='" << H - 8
       << "' text-anchor='middle' font-size='12'>sleep queued ahead (log scale)</text>";
  for (std::size_t i = 0; i < w.series.size(); ++i) {
    const WindowSeries& s = w.series[i];
    const char* colour = kColours[i % std::size(kColours)];
    html << "<path d='";
    for (std::size_t k = 0; k < s.points.size(); ++k)
      html << (k ? " L" : "M") << x(s.points[k].delay_us) << ' ' << y(s.points[k].rate());
    html << "' fill='none' stroke='" << colour << "' stroke-width='2'/>";
    for (const WindowPoint& p : s.points) {
      html << "<circle cx='" << x(p.delay_us) << "' cy='" << y(p.rate()) << "' r='3' fill='" << colour << "'><title>"
           << escape_markup(s.label()) << ", " << format_delay_us(p.delay_us) << ": " << p.reproduced << " of "
           << p.trials << "</title></circle>";
    }
    const double ly = T + 10 + 18 * static_cast<double>(i);
    html << "<line x1='" << W - R + 6 << "' x2='" << W - R + 26 << "' y1='" << ly << "' y2='" << ly << "' stroke='"
         << colour << "' stroke-width='3'/><text x='" << W - R + 30 << "' y='" << ly + 4 << "' font-size='12'>"
         << escape_markup(s.label()) << "</text>";
  }
  for (const TutorialDemo& d : w.demos) {
    const double cx = x(d.delay_ahead_us), cy = y(d.rate());
    html << "<path d='M" << cx << ' ' << cy - 7 << " L" << cx + 7 << ' ' << cy << " L" << cx << ' ' << cy + 7 << " L"
         << cx - 7 << ' ' << cy
         << " Z' fill='none' stroke='#000' stroke-width='2'><title>tutorial: " << escape_markup(d.code) << ": "
         << d.reproduced << " of " << d.trials << "</title></path>";
  }
  html << "</svg>";
  return html.str();
}

}  // namespace

void add_race_windows(doc::Document& d, const GpuReport& report) {
  const auto entries = race_windows(report);
  if (entries.empty()) return;
  d.heading("Race window");
  d.paragraph("With no gate, only a sleep kernel of the given length queued ahead of the racing work: how often the "
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
      d.paragraph("The tutorial's demo, " + doc::code(demo.code) + " (" + format_bytes(demo.bytes) + ", " +
                  std::string(to_string(demo.action)) +
                  (demo.sleep_after_copy ? ", _sleep of " + format_delay_us(demo.sleep_us_here) + " after the copy" : "") +
                  "): " + std::to_string(demo.reproduced) + "/" + std::to_string(demo.trials) + " (" +
                  percent(demo.reproduced, demo.trials) + ")" + (demo.elsewhere.empty() ? "" : "; " + demo.elsewhere) +
                  ".");
    }
  }
}

}  // namespace hazardlab
