#include "race_window_section.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "markup_escape.hpp"

namespace hazardlab {
namespace {

const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

std::string percent(int reproduced, int trials) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", trials > 0 ? 100.0 * reproduced / trials : 0.0);
  return text;
}

bool control_reproduced(const HazardEntry& he) {
  for (const VariantEntry& v : he.variants)
    if (v.kind == VariantKind::Control && v.result && v.result->outcome == Outcome::Reproduced) return true;
  return false;
}

// Delay on a log axis that still shows 0: log10(1 + microseconds).
double delay_axis(double us) { return std::log10(1.0 + us); }

}  // namespace

std::vector<RaceWindowEntry> race_windows(const GpuReport& report) {
  std::vector<RaceWindowEntry> entries;
  for (const HazardEntry& he : report.hazards) {
    for (const VariantEntry& v : he.variants) {
      if (!v.result || !v.result->observations.contains("race_window")) continue;
      RaceWindowEntry e{he.hazard.id, he.hazard.title, {}, {}};
      try {
        e.window = v.result->observations["race_window"].get<RaceWindow>();
      } catch (const nlohmann::json::exception&) {
        continue;  // an unreadable sweep is shown by its variant's row; it has no curve to draw
      }
      if (e.window.never_reproduced() && control_reproduced(he)) {
        e.gate_note =
            "The gated positive control reproduced this hazard in every trial, yet with no gate no delay "
            "up to the largest swept showed it once: on this GPU the race is real but its window is too "
            "narrow to hit by timing alone; the gate is what makes it visible.";
      }
      entries.push_back(std::move(e));
    }
  }
  return entries;
}

nlohmann::json race_windows_json(const GpuReport& report) {
  nlohmann::json out = nlohmann::json::array();
  for (const RaceWindowEntry& e : race_windows(report)) {
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

void race_windows_markdown(std::ostringstream& md, const GpuReport& report) {
  const auto entries = race_windows(report);
  if (entries.empty()) return;
  md << "## Race window\n\nWith no gate, only a sleep kernel of the given length queued ahead of the racing work: "
        "how often the hazard showed. An observation, never part of the verdict. \"Achieved\" is the sleep "
        "measured with CUDA events (median). The headline is the smallest delay from which every trial at every "
        "larger delay reproduced.\n\n";
  for (const RaceWindowEntry& e : entries) {
    const RaceWindow& w = e.window;
    md << "### " << e.hazard_id << " (" << w.profile << ", " << w.trials_per_point << " trials a point)\n\n"
       << w.summary() << (e.gate_note.empty() ? "" : " " + e.gate_note) << "\n\n| Delay | Achieved |";
    for (const WindowSeries& s : w.series) md << ' ' << s.label() << " |";
    md << "\n|---|---|";
    for (std::size_t i = 0; i < w.series.size(); ++i) md << "---|";
    md << '\n';
    // One row per delay any curve measured (they normally share one grid).
    std::set<double> delays;
    for (const WindowSeries& s : w.series)
      for (const WindowPoint& p : s.points) delays.insert(p.delay_us);
    for (const double delay : delays) {
      std::string achieved = "-", cells;
      for (const WindowSeries& s : w.series) {
        const auto p =
            std::find_if(s.points.begin(), s.points.end(), [&](const WindowPoint& q) { return q.delay_us == delay; });
        if (p == s.points.end()) {
          cells += " - |";
          continue;
        }
        if (achieved == "-") achieved = format_delay_us(p->achieved_delay_us);
        cells += ' ' + std::to_string(p->reproduced) + '/' + std::to_string(p->trials) + " |";
      }
      md << "| " << format_delay_us(delay) << " | " << achieved << " |" << cells << '\n';
    }
    for (const TutorialDemo& d : w.demos) {
      md << "\nThe tutorial's demo, `" << d.code << "` (" << format_bytes(d.bytes) << ", " << to_string(d.action)
         << (d.sleep_after_copy ? ", _sleep of " + format_delay_us(d.sleep_us_here) + " after the copy" : "")
         << "): " << d.reproduced << '/' << d.trials << " (" << percent(d.reproduced, d.trials) << ")"
         << (d.elsewhere.empty() ? "" : "; " + d.elsewhere) << ".\n";
    }
    md << '\n';
  }
}

std::string race_windows_html(const GpuReport& report) {
  const auto entries = race_windows(report);
  if (entries.empty()) return {};
  std::ostringstream html;
  html << "<h2>Race window</h2><p>With no gate, only a sleep queued ahead of the racing work: the share of trials "
          "in which the hazard showed, against the delay. An observation, never part of the verdict. Diamonds: "
          "the PyTorch tutorial's own demo, replayed here.</p>";
  constexpr double W = 640, H = 300, L = 50, R = 190, T = 30, B = 45;
  for (const RaceWindowEntry& e : entries) {
    const RaceWindow& w = e.window;
    double top_us = 1;
    for (const WindowSeries& s : w.series)
      for (const WindowPoint& p : s.points) top_us = std::max(top_us, p.delay_us);
    const double x1 = delay_axis(top_us);
    const auto x = [&](double us) { return L + delay_axis(us) / x1 * (W - L - R); };
    const auto y = [&](double rate) { return H - B - rate * (H - T - B); };
    html << "<h3>" << escape_markup(e.hazard_id) << "</h3><p>" << escape_markup(w.summary())
         << (e.gate_note.empty() ? "" : " " + escape_markup(e.gate_note)) << "</p>"
         << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H
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
  }
  return html.str();
}

}  // namespace hazardlab
