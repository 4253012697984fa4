// The outlier rule: among GPUs of one model, a key bandwidth figure far below the others'
// median. Median and MAD, not mean and standard deviation, so that the slow GPU being looked for
// does not drag the yardstick it is measured with.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "hazardlab/fleet.hpp"
#include "hazardlab/number_text.hpp"

namespace hazardlab {
namespace {

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

std::string gbps(double value) { return number_text("%.2f GB/s", value); }

struct Figure {
  const char* name;   // as fleet.json's models[].figure names it
  const char* words;  // as a person reads it
  std::optional<double> FleetRow::*value;
};

constexpr Figure kFigures[] = {
    {"pinned_h2d_gbps", "pinned host-to-device 256 MiB", &FleetRow::pinned_h2d_gbps},
    {"pinned_d2h_gbps", "pinned device-to-host 256 MiB", &FleetRow::pinned_d2h_gbps},
};

void judge_model(FleetReport& report, const Figure& figure, const std::string& model, std::vector<FleetRow*>& rows) {
  std::vector<double> values;
  for (const FleetRow* row : rows) values.push_back(*(row->*figure.value));
  const RobustSpread spread = robust_spread(values);
  ModelFigure m{model,
                figure.name,
                static_cast<int>(rows.size()),
                rows.size() >= kMinGpusForOutliers,
                spread.median,
                spread.mad,
                spread.scale,
                ""};
  if (!m.tested) {
    m.note = "only " + std::to_string(rows.size()) + " GPU(s) of this model have the figure; the outlier test needs " +
             std::to_string(kMinGpusForOutliers) + ", so none is flagged";
    report.models.push_back(m);
    return;
  }
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", report.outlier_mads);
  for (FleetRow* row : rows) {
    const double value = *(row->*figure.value);
    const double distance = (spread.median - value) / spread.scale;
    if (distance <= report.outlier_mads) continue;
    char text[96];
    std::snprintf(text, sizeof text, "%.1f scaled MADs below the median %.2f GB/s", distance, spread.median);
    row->outlier = true;
    row->outlier_reason += std::string(row->outlier_reason.empty() ? "" : "; ") + figure.words + " at " + gbps(value) +
                           " is " + text + " of " + std::to_string(rows.size()) + " " + model + " (scale " +
                           gbps(spread.scale) + ", flagged beyond " + limit + ")";
  }
  report.models.push_back(m);
}

}  // namespace

RobustSpread robust_spread(std::vector<double> figures) {
  RobustSpread s;
  if (figures.empty()) return s;
  s.median = median_of(figures);
  for (double& f : figures) f = std::abs(f - s.median);
  s.mad = median_of(std::move(figures));
  s.scale = std::max(kMadToSigma * s.mad, kMadFloorShareOfMedian * s.median);
  return s;
}

void flag_outliers(FleetReport& report) {
  report.models.clear();
  for (FleetRow& row : report.rows) {
    row.outlier = false;
    row.outlier_reason.clear();
  }
  for (const Figure& figure : kFigures) {
    std::map<std::string, std::vector<FleetRow*>> by_model;
    for (FleetRow& row : report.rows) {
      if (row.has_gpu && (row.*figure.value).has_value()) by_model[row.name].push_back(&row);
    }
    for (auto& [model, rows] : by_model) judge_model(report, figure, model, rows);
  }
}

}  // namespace hazardlab
