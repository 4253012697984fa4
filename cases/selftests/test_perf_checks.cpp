// Performance arithmetic and validation thresholds, with made-up measurements (no GPU needed).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "hazardlab/perf_store.hpp"
#include "hazardlab/report.hpp"
#include "lesson/registry.hpp"
#include "perf/checks.hpp"
#include "settings/settings.hpp"

using namespace hazardlab;
using namespace hazardlab::perf;

namespace {

DeviceFingerprint gen5_x16() {
  DeviceFingerprint d;
  d.index = 0;
  d.name = "Test GPU";
  d.async_engine_count = 3;
  d.pcie.available = true;
  d.pcie.max_generation = 5;
  d.pcie.max_width = 16;
  return d;
}

std::vector<BandwidthPoint> pinned_at(double gbps, std::size_t bytes = std::size_t{256} << 20) {
  return {{Direction::HostToDevice, HostMemoryKind::Pinned, bytes, 1, gbps, gbps, gbps},
          {Direction::DeviceToHost, HostMemoryKind::Pinned, bytes, 1, gbps, gbps, gbps},
          {Direction::HostToDevice, HostMemoryKind::Pageable, bytes, 1, 99, 99, 99}};
}

}  // namespace

TEST(Overlap, FractionIsTheShareOfTheShorterOperationHidden) {
  EXPECT_DOUBLE_EQ(overlap_fraction(10, 10, 10), 1.0);  // fully hidden
  EXPECT_DOUBLE_EQ(overlap_fraction(10, 10, 20), 0.0);  // serial
  EXPECT_DOUBLE_EQ(overlap_fraction(10, 4, 12), 0.5);   // 2 of the copy's 4 ms hidden
  EXPECT_DOUBLE_EQ(overlap_fraction(10, 10, 25), 0.0);  // slower than serial: clamped
  EXPECT_DOUBLE_EQ(overlap_fraction(0, 10, 10), 0.0);
}

TEST(Median, OddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(LinkCheck, PassesAtEightyPercentOfTheRawRateAndFailsBelow) {
  const Thresholds t;
  const double raw = gen5_x16().pcie.max_raw_gbps_per_direction();
  EXPECT_NEAR(raw, 63.0, 0.1);
  for (const Check& c : check_link_bandwidth(pinned_at(55.0), gen5_x16(), t)) EXPECT_TRUE(c.applicable && c.passed);
  for (const Check& c : check_link_bandwidth(pinned_at(26.0), gen5_x16(), t)) {
    EXPECT_TRUE(c.applicable);
    EXPECT_FALSE(c.passed) << c.measured;  // a link trained down to Gen4 speed
  }
}

TEST(LinkCheck, OnlyPinnedCopiesOf256MiBOrMoreCount) {
  const auto checks = check_link_bandwidth(pinned_at(60.0, std::size_t{16} << 20), gen5_x16(), Thresholds{});
  for (const Check& c : checks) {
    EXPECT_FALSE(c.applicable);
    EXPECT_NE(c.not_applicable_reason.find("256 MiB"), std::string::npos);
  }
}

TEST(LinkCheck, AnUnknownLinkIsNotApplicableAndSaysWhy) {
  DeviceFingerprint d = gen5_x16();
  d.pcie.available = false;
  d.pcie.unavailable_reason = "no NVML";
  for (const Check& c : check_link_bandwidth(pinned_at(55.0), d, Thresholds{})) {
    EXPECT_FALSE(c.applicable);
    EXPECT_NE(c.not_applicable_reason.find("no NVML"), std::string::npos);
  }
}

TEST(OverlapCheck, NeedsACopyEngineAndHalfTheCopyHidden) {
  const std::vector<OverlapResult> good{{HostMemoryKind::Pinned, true, 1, 5, 5, 5.2, 0.96}};
  const std::vector<OverlapResult> serial{{HostMemoryKind::Pinned, true, 1, 5, 5, 10, 0.0}};
  EXPECT_TRUE(check_overlap(good, gen5_x16(), Thresholds{})[0].passed);
  EXPECT_FALSE(check_overlap(serial, gen5_x16(), Thresholds{})[0].passed);
  DeviceFingerprint no_engine = gen5_x16();
  no_engine.async_engine_count = 0;
  EXPECT_FALSE(check_overlap(serial, no_engine, Thresholds{})[0].applicable);
}

TEST(Thresholds, AreConfigurableAndValidated) {
  ::setenv("HAZARDLAB_MIN_LINK_FRACTION", "0.9", 1);
  EXPECT_DOUBLE_EQ(thresholds_from_environment().min_link_fraction, 0.9);
  ::setenv("HAZARDLAB_MIN_LINK_FRACTION", "90", 1);
  EXPECT_THROW(thresholds_from_environment(), SettingsError);
  ::unsetenv("HAZARDLAB_MIN_LINK_FRACTION");
  ::setenv("HAZARDLAB_PERF_PROFILE", "medium", 1);
  EXPECT_THROW(profile_from_environment(), SettingsError);
  ::setenv("HAZARDLAB_PERF_PROFILE", "full", 1);
  EXPECT_EQ(profile_from_environment().sizes.back(), std::size_t{1} << 30);
  ::unsetenv("HAZARDLAB_PERF_PROFILE");
  EXPECT_EQ(profile_from_environment().name, "quick");
}

TEST(PerfReport, AMissedThresholdFailsTheGpuAndTheHtmlShowsThePlots) {
  const auto dir = std::filesystem::temp_directory_path() / ("hazardlab-perf-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  PerfRecord record;
  record.part = "bandwidth";
  record.profile = "quick";
  record.device_index = 0;
  record.status = PerfStatus::Measured;
  record.measurements["bandwidth"] = pinned_at(26.0);
  record.measurements["concurrent"] = ConcurrentResult{1, 20, 20, 26, 26};
  record.measurements["link_raw_gbps_per_direction"] = 63.0;
  record.checks = check_link_bandwidth(pinned_at(26.0), gen5_x16(), Thresholds{});
  store_perf(dir, record);
  const auto loaded = load_perf(dir, 0);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].checks.size(), 2u);

  DeviceInventory inv;
  inv.devices = {gen5_x16()};
  RunContents contents{{}, Registry::instance().catalog(), inv, {}, {{0, loaded}}};
  const auto reports = build_reports(contents, false);
  EXPECT_EQ(reports[0].verdict, Verdict::Fail);
  EXPECT_NE(reports[0].verdict_reason.find("validation threshold"), std::string::npos);
  const std::string html = report_to_html(reports[0]);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("PCIe link raw rate 63.0"), std::string::npos);
  EXPECT_NE(html.find("FAILED"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(report_to_markdown(reports[0]).find("| pinned host-to-device"), std::string::npos);
}

TEST(PerfReport, MeasurementsAloneWithThresholdsMetArePartialNeverPass) {
  PerfRecord record;
  record.part = "overlap";
  record.device_index = 0;
  record.status = PerfStatus::Measured;
  record.checks = check_overlap({{HostMemoryKind::Pinned, true, 1, 5, 5, 5.1, 0.98}}, gen5_x16(), Thresholds{});
  DeviceInventory inv;
  inv.devices = {gen5_x16()};
  RunContents contents{{}, Registry::instance().catalog(), inv, {}, {{0, {record}}}};
  const auto reports = build_reports(contents, false);
  // Only one measurement group ran: what ran held, but the verdict must not be PASS.
  EXPECT_EQ(reports[0].verdict, Verdict::Partial);
  EXPECT_FALSE(reports[0].complete());
  EXPECT_NE(reports[0].verdict_reason.find("threshold met"), std::string::npos) << reports[0].verdict_reason;
  EXPECT_NE(reports[0].verdict_reason.find("did not run"), std::string::npos) << reports[0].verdict_reason;
}
