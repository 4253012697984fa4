#include "sweep/self_check.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "cuda/check.hpp"
#include "hazardlab/number_text.hpp"

namespace hazardlab {
namespace {

std::string type_name(cudaMemoryType type) {
  switch (type) {
    case cudaMemoryTypeUnregistered:
      return "memory CUDA does not know (pageable)";
    case cudaMemoryTypeHost:
      return "page-locked host memory";
    case cudaMemoryTypeDevice:
      return "device memory";
    case cudaMemoryTypeManaged:
      return "managed memory";
  }
  return "memory of type " + std::to_string(static_cast<int>(type));
}

// The cudaHostAlloc flag a kind must carry, beyond being page-locked (0: none).
unsigned required_flag(HostMemoryKind kind) {
  switch (kind) {
    case HostMemoryKind::PinnedPortable:
      return cudaHostAllocPortable;
    case HostMemoryKind::Mapped:
      return cudaHostAllocMapped;
    case HostMemoryKind::WriteCombined:
      return cudaHostAllocWriteCombined;
    default:
      return 0;
  }
}

bool page_locked(HostMemoryKind kind) { return kind != HostMemoryKind::Pageable; }

}  // namespace

std::optional<std::string> memory_problem(std::string_view role, HostMemoryKind claimed, const HostMemorySeen& seen) {
  const std::string where = std::string(role) + " should be " + std::string(to_string(claimed)) + " memory";
  if (!page_locked(claimed)) {
    if (seen.type == cudaMemoryTypeUnregistered && !seen.host_flags) return std::nullopt;
    return where + ", but CUDA sees " + type_name(seen.type);
  }
  if (seen.type != cudaMemoryTypeHost || !seen.host_flags)
    return where + ", but CUDA sees " + type_name(seen.type) +
           (seen.host_flags ? "" : " and cudaHostGetFlags does not know it");
  if (const unsigned flag = required_flag(claimed); flag != 0 && (*seen.host_flags & flag) == 0)
    return where + ", but cudaHostGetFlags gives " + std::to_string(*seen.host_flags) + ", without flag " +
           std::to_string(flag);
  // Plain pinned memory read back by the host must not be write-combined: its reads would crawl.
  if (claimed == HostMemoryKind::Pinned && (*seen.host_flags & cudaHostAllocWriteCombined) != 0)
    return where + ", but it is write-combined";
  return std::nullopt;
}

std::optional<std::string> delay_problem(const RaceWindow& window, const SweepTolerance& tolerance) {
  int checked = 0, wrong = 0;
  std::string first;
  for (const WindowSeries& series : window.series) {
    for (const WindowPoint& p : series.points) {
      if (p.delay_us < tolerance.min_checked_delay_us) continue;
      ++checked;
      const double low = tolerance.min_achieved_fraction * p.delay_us;
      const double high = tolerance.max_achieved_factor * p.delay_us + tolerance.max_achieved_slack_us;
      if (p.achieved_delay_us >= low && p.achieved_delay_us <= high) continue;
      if (++wrong == 1)
        first = series.label() + ": " + format_delay_us(p.delay_us) + " asked, " +
                number_text("%.1f", p.achieved_delay_us) + " us measured between the events around the sleep";
    }
  }
  if (wrong == 0) return std::nullopt;
  return "the achieved delay does not follow the requested one at " + std::to_string(wrong) + " of " +
         std::to_string(checked) + " points (tolerance: at least " +
         number_text("%.1f", 100 * tolerance.min_achieved_fraction) + "% of the request, at most " +
         number_text("%.1f", tolerance.max_achieved_factor) + "x it plus " +
         number_text("%.1f", tolerance.max_achieved_slack_us) + " us, from " +
         format_delay_us(tolerance.min_checked_delay_us) + "); first: " + first;
}

std::optional<std::string> largest_delay_problem(const RaceWindow& window, const SweepTolerance& tolerance) {
  std::string problems;
  for (const WindowSeries& series : window.series) {
    if (series.points.empty()) continue;
    const WindowPoint& p =
        *std::max_element(series.points.begin(), series.points.end(),
                          [](const WindowPoint& a, const WindowPoint& b) { return a.delay_us < b.delay_us; });
    if (p.trials > 0 && p.rate() >= tolerance.min_rate_at_largest_delay) continue;
    problems += (problems.empty() ? "" : "; ") + series.label() + " reproduced in " + std::to_string(p.reproduced) +
                " of " + std::to_string(p.trials) + " trials at " + format_delay_us(p.delay_us);
  }
  if (problems.empty()) return std::nullopt;
  return "at its largest delay the ungated race must reproduce as the gated control does (in at least " +
         number_text("%.1f", 100 * tolerance.min_rate_at_largest_delay) + "% of trials), but " + problems;
}

std::vector<std::string> sweep_self_check(const RaceWindow& window, std::vector<std::string> memory_problems,
                                          bool timing_checks, const SweepTolerance& tolerance) {
  std::vector<std::string> problems = std::move(memory_problems);
  SweepTolerance delays = tolerance;
  // A sanitizer slows every launch: a sleep still never ends early, but may end late.
  if (!timing_checks) delays.max_achieved_factor = std::numeric_limits<double>::infinity();
  if (auto p = delay_problem(window, delays)) problems.push_back(*p);
  if (timing_checks) {
    if (auto p = largest_delay_problem(window, tolerance)) problems.push_back(*p);
  }
  return problems;
}

HostMemorySeen observe_host_memory(const void* pointer) {
  HostMemorySeen seen;
  cudaPointerAttributes attributes{};
  HL_CUDA(cudaPointerGetAttributes(&attributes, pointer));
  seen.type = attributes.type;
  unsigned flags = 0;
  if (cudaHostGetFlags(&flags, const_cast<void*>(pointer)) == cudaSuccess) seen.host_flags = flags;
  // A refusal is the answer here, not an error for the next checked call to find.
  (void)cudaGetLastError();
  return seen;
}

}  // namespace hazardlab
