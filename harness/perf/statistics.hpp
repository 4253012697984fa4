#pragma once
// The spread of repeated measurements and "confirm before failing": plain arithmetic, no CUDA,
// so that the self-tests can check it with made-up samples.
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace hazardlab::perf {

// Median and spread of samples. Quartiles interpolate linearly between order statistics (the
// common "type 7" definition); cv is the sample standard deviation over the mean.
struct Spread {
  std::size_t n = 0;
  double median = 0, min = 0, max = 0;
  double q1 = 0, q3 = 0;
  double cv = 0;  // coefficient of variation, 0.01 = 1%
  double iqr() const noexcept { return q3 - q1; }
};
Spread spread_of(std::vector<double> samples);
void to_json(nlohmann::json& j, const Spread& s);

// One attempt at a figure: its samples (GB/s) and their spread.
struct Attempt {
  std::vector<double> samples;
  Spread spread;
};
Attempt attempt_of(std::vector<double> samples);

// A threshold miss is measured again, from scratch, up to kConfirmAttempts attempts in all; the
// figure misses only if every attempt missed. Every attempt is kept for the report.
inline constexpr int kConfirmAttempts = 3;

struct ConfirmedFigure {
  std::vector<Attempt> attempts;
  std::optional<std::size_t> accepted;  // the attempt that met the threshold, if one did
  bool met() const noexcept { return accepted.has_value(); }
  // The accepted attempt, or else the best (highest median) of the misses.
  const Attempt& figure() const;
};

ConfirmedFigure confirm(const std::function<Attempt()>& measure, const std::function<bool(const Attempt&)>& meets,
                        int max_attempts = kConfirmAttempts);

// GB/s (1e9 bytes per second) of `copies` copies of `bytes` timed at `ms`; 0 for no time.
double gbps_of(std::size_t bytes, int copies, double ms) noexcept;

// ours / reference, 0 when the reference is missing or not positive.
double ratio_to_reference(double ours, double reference) noexcept;

}  // namespace hazardlab::perf
