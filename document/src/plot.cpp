// The one place a chart is drawn: a doc::Plot as inline SVG, the axes and legend laid out the same
// way for every chart of every report (bandwidth against size, race windows, soak throughput).
#include <cmath>
#include <sstream>

#include "hazardlab/document.hpp"
#include "hazardlab/markup_escape.hpp"

namespace hazardlab::doc {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr double kLeft = 60, kRight = 190, kTop = 30, kBottom = 50;  // margins: axis labels, legend

double placed(Plot::Scale scale, double v) {
  switch (scale) {
    case Plot::Scale::Log2:
      return std::log2(v);
    case Plot::Scale::Log1p:
      return std::log10(1.0 + v);
    case Plot::Scale::Linear:
      break;
  }
  return v;
}

}  // namespace

std::string to_svg(const Plot& p) {
  const double w = p.width, h = p.height;
  const double x0 = placed(p.x_scale, p.x_min), x1 = placed(p.x_scale, p.x_max);
  const double span = x1 > x0 ? x1 - x0 : 1;
  const double y_top = p.y_max > 0 ? p.y_max : 1;
  const auto x = [&](double v) { return kLeft + (placed(p.x_scale, v) - x0) / span * (w - kLeft - kRight); };
  const auto y = [&](double v) { return h - kBottom - v / y_top * (h - kTop - kBottom); };
  std::ostringstream svg;
  // The view box lets the page scale the chart down to a narrow window, keeping its proportions.
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h << "' viewBox='0 0 " << w << ' '
      << h << "' role='img' aria-label='"
      << escape_markup(p.description) << "'>";
  if (!p.title.empty())
    svg << "<text x='" << kLeft << "' y='18' font-weight='bold'>" << escape_markup(p.title) << "</text>";
  for (const Plot::Tick& t : p.y_ticks) {
    svg << "<line x1='" << kLeft << "' x2='" << w - kRight << "' y1='" << y(t.at) << "' y2='" << y(t.at)
        << "' stroke='#ddd'/><text x='" << kLeft - 6 << "' y='" << y(t.at) + 4 << "' text-anchor='end' font-size='11'>"
        << escape_markup(t.label) << "</text>";
  }
  for (const Plot::Tick& t : p.x_ticks) {
    svg << "<text x='" << x(t.at) << "' y='" << h - kBottom + 16 << "' text-anchor='middle' font-size='11'>"
        << escape_markup(t.label) << "</text>";
  }
  svg << "<text x='" << (kLeft + w - kRight) / 2 << "' y='" << h - 10 << "' text-anchor='middle' font-size='12'>"
      << escape_markup(p.x_label) << "</text>";
  for (const Plot::Rule& r : p.rules) {
    svg << "<line x1='" << kLeft << "' x2='" << w - kRight << "' y1='" << y(r.y) << "' y2='" << y(r.y)
        << "' stroke='#000' stroke-dasharray='6 4'/><text x='" << kLeft + 6 << "' y='" << y(r.y) - 5
        << "' font-size='11'>" << escape_markup(r.label) << "</text>";
  }
  for (std::size_t i = 0; i < p.series.size(); ++i) {
    const Plot::Series& s = p.series[i];
    const std::string colour = s.colour.empty() ? kPalette[i % std::size(kPalette)] : escape_markup(s.colour);
    svg << "<path d='";
    for (std::size_t k = 0; k < s.points.size(); ++k)
      svg << (k ? " L" : "M") << x(s.points[k].x) << ' ' << y(s.points[k].y);
    svg << "' fill='none' stroke='" << colour << "' stroke-width='2'/>";
    for (const Plot::Point& pt : s.points) {
      if (!s.dots) break;
      svg << "<circle cx='" << x(pt.x) << "' cy='" << y(pt.y) << "' r='3' fill='" << colour << "'><title>"
          << escape_markup(pt.tip) << "</title></circle>";
    }
    const double legend_y = kTop + 10 + 18 * static_cast<double>(i);
    svg << "<line x1='" << w - kRight + 6 << "' x2='" << w - kRight + 26 << "' y1='" << legend_y << "' y2='" << legend_y
        << "' stroke='" << colour << "' stroke-width='3'/><text x='" << w - kRight + 30 << "' y='" << legend_y + 4
        << "' font-size='12'>" << escape_markup(s.name) << "</text>";
  }
  for (const Plot::Marker& m : p.markers) {
    const double cx = x(m.x), cy = y(m.y);
    svg << "<path d='M" << cx << ' ' << cy - 7 << " L" << cx + 7 << ' ' << cy << " L" << cx << ' ' << cy + 7 << " L"
        << cx - 7 << ' ' << cy << " Z' fill='none' stroke='#000' stroke-width='2'><title>" << escape_markup(m.tip)
        << "</title></path>";
  }
  svg << "</svg>";
  return svg.str();
}

}  // namespace hazardlab::doc
