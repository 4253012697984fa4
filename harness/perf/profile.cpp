#include <algorithm>
#include <cstdlib>

#include "perf/perf.hpp"
#include "settings/settings.hpp"

namespace hazardlab::perf {
namespace {
constexpr std::size_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
}

std::string_view to_string(Direction d) noexcept { return d == Direction::HostToDevice ? "h2d" : "d2h"; }

Profile quick_profile() {
  Profile p;
  p.name = "quick";
  p.sizes = {4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 256 * MiB};
  p.repeats = 3;
  p.bytes_per_repeat = 64 * MiB;
  p.max_copies_per_repeat = 16;
  p.concurrent_bytes = 64 * MiB;
  p.overlap_bytes = 64 * MiB;
  p.pinned_budget = 2 * GiB;
  return p;
}

Profile full_profile() {
  Profile p;
  p.name = "full";
  for (std::size_t s = 4 * KiB; s <= GiB; s *= 2) p.sizes.push_back(s);
  p.repeats = 5;
  p.bytes_per_repeat = 256 * MiB;
  p.max_copies_per_repeat = 32;
  p.concurrent_bytes = 256 * MiB;
  p.overlap_bytes = 256 * MiB;
  p.pinned_budget = 2 * GiB;
  return p;
}

Profile profile_from_environment() {
  Profile p = quick_profile();
  if (const char* v = std::getenv("HAZARDLAB_PERF_PROFILE"); v && *v) {
    const std::string name = v;
    if (name == "full")
      p = full_profile();
    else if (name != "quick")
      throw SettingsError("HAZARDLAB_PERF_PROFILE='" + name + "': expected quick or full");
  }
  if (const char* v = std::getenv("HAZARDLAB_PINNED_BUDGET_MB"); v && *v) {
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(v, &end, 10);
    if (*end != '\0' || mb < 64 || mb > 1024 * 1024) {
      throw SettingsError(std::string("HAZARDLAB_PINNED_BUDGET_MB='") + v + "': expected 64 to 1048576");
    }
    p.pinned_budget = mb * MiB;
  }
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

void to_json(nlohmann::json& j, const BandwidthPoint& b) {
  j = {{"direction", std::string(to_string(b.direction))},
       {"host_memory", std::string(to_string(b.host))},
       {"bytes", b.bytes},
       {"copies_per_repeat", b.copies_per_repeat},
       {"median_gbps", b.median_gbps},
       {"min_gbps", b.min_gbps},
       {"max_gbps", b.max_gbps}};
}

void to_json(nlohmann::json& j, const ConcurrentResult& c) {
  j = {{"bytes", c.bytes},
       {"h2d_gbps", c.h2d_gbps},
       {"d2h_gbps", c.d2h_gbps},
       {"h2d_alone_gbps", c.h2d_alone_gbps},
       {"d2h_alone_gbps", c.d2h_alone_gbps}};
}

void to_json(nlohmann::json& j, const OverlapResult& o) {
  j = {{"host_memory", std::string(to_string(o.host))},
       {"streams", o.separate_streams ? "separate" : "same"},
       {"bytes", o.bytes},
       {"kernel_ms", o.kernel_ms},
       {"copy_ms", o.copy_ms},
       {"both_ms", o.both_ms},
       {"fraction_hidden", o.fraction}};
}

void to_json(nlohmann::json& j, const Comparison& c) {
  j = {{"id", c.id},     {"question", c.question}, {"a", c.a}, {"a_ms", c.a_ms}, {"b", c.b},
       {"b_ms", c.b_ms}, {"b_over_a", c.ratio()}};
}

}  // namespace hazardlab::perf
