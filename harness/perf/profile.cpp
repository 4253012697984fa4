#include <algorithm>
#include <cstdlib>

#include "perf/perf.hpp"
#include "settings/settings.hpp"
#include "hazardlab/setting_source.hpp"

namespace hazardlab::perf {
namespace {
constexpr std::size_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
}

// The checked sizes are those nvbandwidth is compared at; 512 MiB per timed loop is its default
// buffer. Samples and warm-up follow its defaults too (3 samples and 4 warm-up copies there; 5
// and 1 here, since each of our samples repeats its warm-up and the spread needs more than 3).
// The figures no check reads (pageable, registered and write-combined memory, small pinned
// copies) are measured with shorter loops, up to 64 MiB, in the quick profile: pageable copies
// run at a fifth of the link's rate, and measured like the checked ones they took most of the
// bandwidth test's 7.8 s on an H100 while every other GPU of the host waited.
Profile quick_profile() {
  Profile p;
  p.name = "quick";
  p.sizes = {4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 64 * MiB};
  p.pinned_sizes = {4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 64 * MiB, 256 * MiB, 1 * GiB};
  p.checked_sizes = {64 * MiB, 256 * MiB, 1 * GiB};
  p.samples = 5;
  p.bytes_per_sample = 512 * MiB;
  p.unchecked_bytes_per_sample = 128 * MiB;
  p.bidirectional_bytes = 256 * MiB;
  p.overlap_bytes = 64 * MiB;
  p.pinned_budget = 2 * GiB;
  return p;
}

Profile full_profile() {
  Profile p = quick_profile();
  p.name = "full";
  p.sizes.clear();
  for (std::size_t s = 4 * KiB; s <= GiB; s *= 2) p.sizes.push_back(s);
  p.pinned_sizes = p.sizes;
  p.samples = 9;
  p.bytes_per_sample = 1 * GiB;
  p.unchecked_bytes_per_sample = 0;
  p.bidirectional_bytes = 512 * MiB;
  p.overlap_bytes = 256 * MiB;
  p.repeats = 5;
  return p;
}

// The health profile's link check: only what the check reads, at its middle size, pinned, in both
// directions; every GPU of a host takes its turn at it, so it must be short (README, "Node health").
// 256 MiB copies, 2 per loop, 5 loops a direction: about 0.1 s of copying per direction at 55 GB/s.
Profile health_profile() {
  Profile p = quick_profile();
  p.name = "health";
  p.link_check_only = true;
  p.sizes.clear();
  p.pinned_sizes = {256 * MiB};
  p.checked_sizes = {256 * MiB};
  p.bidirectional_bytes = 64 * MiB;
  p.pinned_budget = 1 * GiB;
  return p;
}

namespace {
int copies_within(const Profile& p, std::size_t per_sample, std::size_t bytes) {
  const std::size_t wanted = bytes ? per_sample / bytes : 1;
  return static_cast<int>(
      std::clamp<std::size_t>(wanted, static_cast<std::size_t>(p.min_copies), static_cast<std::size_t>(p.max_copies)));
}
}  // namespace

int Profile::copies_for(std::size_t bytes) const { return copies_within(*this, bytes_per_sample, bytes); }

int Profile::unchecked_copies_for(std::size_t bytes) const {
  return copies_within(*this, unchecked_bytes_per_sample ? unchecked_bytes_per_sample : bytes_per_sample, bytes);
}

Profile profile_from_environment() {
  Profile p = quick_profile();
  // The health profile's measurements, unless HAZARDLAB_PERF_PROFILE asks for others.
  const SettingSource source = SettingSource::from_environment();
  if (run_profile_of(source) == RunProfile::Health) p = health_profile();
  if (source.given(setting::kPerfProfile))
    p = source.choice(setting::kPerfProfile, "quick") == "full" ? full_profile() : quick_profile();
  if (const std::optional<std::uint64_t> budget_mib = source.whole(setting::kPinnedBudgetMb))
    p.pinned_budget = *budget_mib * MiB;
  return p;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double overlap_fraction(double kernel_ms, double copy_ms, double both_ms) noexcept {
  const double shorter = std::min(kernel_ms, copy_ms);
  if (shorter <= 0) return 0;
  return std::clamp((kernel_ms + copy_ms - both_ms) / shorter, 0.0, 1.0);
}

BandwidthPoint point_of(Direction d, HostMemoryKind host, std::size_t bytes, int copies, const ConfirmedFigure& f) {
  BandwidthPoint b;
  b.direction = d;
  b.host = host;
  b.bytes = bytes;
  b.copies_per_repeat = copies;
  const Spread& s = f.figure().spread;
  b.median_gbps = s.median;
  b.min_gbps = s.min;
  b.max_gbps = s.max;
  b.cv = s.cv;
  b.iqr_gbps = s.iqr();
  b.samples = s.n;
  b.attempts = f.attempts;
  b.confirmed_miss = !f.met() && f.attempts.size() > 1;
  return b;
}

}  // namespace hazardlab::perf
