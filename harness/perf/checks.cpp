#include "perf/checks.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hazardlab/number_text.hpp"
#include "hazardlab/setting_source.hpp"
#include "settings/settings.hpp"

namespace hazardlab::perf {
namespace {}  // namespace

Thresholds thresholds_from_environment() {
  Thresholds t;
  const SettingSource source = SettingSource::from_environment();
  t.min_link_fraction = source.fraction(setting::kMinLinkFraction, t.min_link_fraction);
  t.min_overlap = source.fraction(setting::kMinOverlap, t.min_overlap);
  return t;
}

static std::string size_text(std::size_t bytes) {
  return bytes >= (std::size_t{1} << 30) ? std::to_string(bytes >> 30) + " GiB" : std::to_string(bytes >> 20) + " MiB";
}

std::vector<Check> check_link_bandwidth(const std::vector<BandwidthPoint>& points,
                                        const std::vector<std::size_t>& checked_sizes, const DeviceFingerprint& device,
                                        const Thresholds& t) {
  std::vector<Check> checks;
  const double link = device.pcie.max_raw_gbps_per_direction();
  for (Direction d : {Direction::HostToDevice, Direction::DeviceToHost}) {
    Check c;
    c.id = std::string("pinned-") + std::string(to_string(d)) + "-link-fraction";
    char text[240];
    std::snprintf(text, sizeof text,
                  "pinned %s copies of 64 MiB, 256 MiB and 1 GiB each reach %.0f%% of the link's raw rate (a miss, "
                  "or a figure 3%% under nvbandwidth's beside it, is measured again on fresh memory, %d attempts in "
                  "all)",
                  d == Direction::HostToDevice ? "host-to-device" : "device-to-host", t.min_link_fraction * 100,
                  kConfirmAttempts);
    c.description = text;
    c.rationale =
        "PCIe headers and flow control take 10-15% of the raw rate, so a healthy link delivers 85-90% of it; the "
        "default 80% (HAZARDLAB_MIN_LINK_FRACTION) still fails a link trained down a generation or to fewer lanes. "
        "One allocation's pages can slow its copies by a fifth, so only a miss that persists fails.";
    if (device.integrated || device.mig || link <= 0) {
      c.applicable = false;
      c.not_applicable_reason =
          device.integrated ? "an integrated GPU has no PCIe link"
          : device.mig      ? "a MIG instance shares its GPU's PCIe link and copy engines with the other instances, so "
                              "its share of the link says nothing about the link; the check applies to whole GPUs"
                            : "NVML did not report the link (" + device.pcie.unavailable_reason + ")";
      checks.push_back(c);
      continue;
    }
    std::string measured;
    bool all_met = true;
    int found = 0;
    for (const BandwidthPoint& b : points) {
      if (b.direction != d || b.host != HostMemoryKind::Pinned) continue;
      if (std::find(checked_sizes.begin(), checked_sizes.end(), b.bytes) == checked_sizes.end()) continue;
      ++found;
      const double fraction = b.median_gbps / link;
      const bool met = fraction >= t.min_link_fraction;
      all_met = all_met && met;
      std::snprintf(text, sizeof text, "%s%s %s (%.1f%%, CV %.1f%%)%s", measured.empty() ? "" : "; ",
                    size_text(b.bytes).c_str(), number_text("%.1f GB/s", b.median_gbps).c_str(), fraction * 100,
                    b.cv * 100, met ? "" : " MISSED");
      measured += text;
      for (std::size_t i = 0; b.attempts.size() > 1 && i < b.attempts.size(); ++i) {
        const Spread& s = b.attempts[i].spread;
        const bool attempt_met = s.median / link >= t.min_link_fraction;
        // Met, but more than 3% under nvbandwidth's figure (reference.hpp): measured again all the same.
        const bool under_reference = attempt_met && s.median < b.floor_gbps && i + 1 < b.attempts.size();
        std::snprintf(text, sizeof text, "%s attempt %zu: median %s (%.1f%%), CV %.1f%%, IQR %.2f GB/s: %s",
                      size_text(b.bytes).c_str(), i + 1, number_text("%.1f GB/s", s.median).c_str(),
                      s.median / link * 100, s.cv * 100, s.iqr(),
                      under_reference ? "met, but under 97% of nvbandwidth's"
                      : attempt_met   ? "met"
                                      : "missed");
        c.attempts.push_back(text);
      }
    }
    if (found < static_cast<int>(checked_sizes.size())) {
      c.applicable = false;
      c.not_applicable_reason = "not every checked size was measured (pinned-memory budget too small?)";
      checks.push_back(c);
      continue;
    }
    std::snprintf(text, sizeof text, " of %s raw (Gen%d x%d)", number_text("%.1f GB/s", link).c_str(),
                  device.pcie.max_generation, device.pcie.max_width);
    c.measured = measured + text;
    c.passed = all_met;
    checks.push_back(c);
  }
  return checks;
}

std::vector<Check> check_overlap(const std::vector<OverlapResult>& overlap, const DeviceFingerprint& device,
                                 const Thresholds& t) {
  Check c;
  c.id = "pinned-copy-overlaps-kernel";
  char text[200];
  std::snprintf(text, sizeof text,
                "a pinned copy on its own stream hides at least %.0f%% of itself behind a concurrent kernel",
                t.min_overlap * 100);
  c.description = text;
  c.rationale =
      "A device with a copy engine runs copies beside kernels, hiding nearly all of the shorter one; the default "
      "50% (HAZARDLAB_MIN_OVERLAP) fails only a device or driver that serializes them.";
  if (device.async_engine_count < 1) {
    c.applicable = false;
    c.not_applicable_reason = "the device reports no copy engine (asyncEngineCount = 0)";
    return {c};
  }
  for (const OverlapResult& o : overlap) {
    if (o.host != HostMemoryKind::Pinned || !o.separate_streams) continue;
    std::snprintf(text, sizeof text, "%.0f%% hidden (kernel %.2f ms, copy %.2f ms, together %.2f ms)", o.fraction * 100,
                  o.kernel_ms, o.copy_ms, o.both_ms);
    c.measured = text;
    c.passed = o.fraction >= t.min_overlap;
    return {c};
  }
  c.applicable = false;
  c.not_applicable_reason = "the pinned, separate-stream overlap was not measured";
  return {c};
}

}  // namespace hazardlab::perf
