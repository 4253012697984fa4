#include "perf/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace hazardlab::perf {
namespace {

// Linear interpolation between the order statistics of sorted values, at fraction q of the range.
double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - static_cast<double>(below));
}

}  // namespace

Spread spread_of(std::vector<double> samples) {
  Spread s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile(samples, 0.5);
  s.q1 = quantile(samples, 0.25);
  s.q3 = quantile(samples, 0.75);
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1 && mean > 0) {
    double squares = 0;
    for (double x : samples) squares += (x - mean) * (x - mean);
    s.cv = std::sqrt(squares / static_cast<double>(s.n - 1)) / mean;
  }
  return s;
}

Attempt attempt_of(std::vector<double> samples) {
  Attempt a;
  a.spread = spread_of(samples);
  a.samples = std::move(samples);
  return a;
}

const Attempt& ConfirmedFigure::figure() const {
  if (attempts.empty()) throw std::logic_error("a confirmed figure without attempts");
  if (accepted) return attempts[*accepted];
  return *std::max_element(attempts.begin(), attempts.end(),
                           [](const Attempt& a, const Attempt& b) { return a.spread.median < b.spread.median; });
}

ConfirmedFigure confirm(const std::function<Attempt()>& measure, const std::function<bool(const Attempt&)>& meets,
                        int max_attempts) {
  ConfirmedFigure c;
  for (int i = 0; i < std::max(1, max_attempts); ++i) {
    c.attempts.push_back(measure());
    if (meets(c.attempts.back())) {
      c.accepted = c.attempts.size() - 1;
      break;
    }
  }
  return c;
}

double gbps_of(std::size_t bytes, int copies, double ms) noexcept {
  return ms > 0 ? static_cast<double>(bytes) * copies / (ms / 1e3) / 1e9 : 0;
}

}  // namespace hazardlab::perf
