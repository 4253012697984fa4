#pragma once
// The spread of repeated measurements and "confirm before failing": plain arithmetic, no CUDA,
// so that the self-tests can check it with made-up samples.
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "hazardlab/measurements.hpp"

namespace hazardlab::perf {

// Median and spread of samples (Spread: hazardlab/measurements.hpp).
Spread spread_of(std::vector<double> samples);

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

}  // namespace hazardlab::perf
