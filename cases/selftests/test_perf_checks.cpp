// Performance arithmetic and validation thresholds, with made-up measurements (no GPU needed).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <thread>

#include "fake_run.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/report.hpp"
#include "hazard/registry.hpp"
#include "perf/checks.hpp"
#include "perf/host_lock.hpp"
#include "perf/reference.hpp"
#include "settings/settings.hpp"

using namespace hazardlab;
using namespace hazardlab::perf;
using hazardlab::testing::fresh_dir;

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

const std::vector<std::size_t> kChecked{std::size_t{64} << 20, std::size_t{256} << 20, std::size_t{1} << 30};

BandwidthPoint point(Direction d, HostMemoryKind kind, std::size_t bytes, std::vector<double> samples) {
  return point_of(d, kind, bytes, 2, confirm([&] { return attempt_of(samples); }, [](const Attempt&) { return true; }));
}

// Pinned figures at every checked size (or only at `bytes`), and a pageable one that must not count.
std::vector<BandwidthPoint> pinned_at(double gbps, std::optional<std::size_t> bytes = std::nullopt) {
  std::vector<BandwidthPoint> points;
  for (std::size_t b : bytes ? std::vector<std::size_t>{*bytes} : kChecked) {
    points.push_back(point(Direction::HostToDevice, HostMemoryKind::Pinned, b, {gbps, gbps, gbps}));
    points.push_back(point(Direction::DeviceToHost, HostMemoryKind::Pinned, b, {gbps, gbps, gbps}));
    points.push_back(point(Direction::HostToDevice, HostMemoryKind::Pageable, b, {99, 99, 99}));
  }
  return points;
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
  for (const Check& c : check_link_bandwidth(pinned_at(55.0), kChecked, gen5_x16(), t))
    EXPECT_TRUE(c.applicable && c.passed);
  for (const Check& c : check_link_bandwidth(pinned_at(26.0), kChecked, gen5_x16(), t)) {
    EXPECT_TRUE(c.applicable);
    EXPECT_FALSE(c.passed) << c.measured;  // a link trained down to Gen4 speed
  }
}

TEST(LinkCheck, EveryCheckedSizeMustBeMeasured) {
  const auto checks = check_link_bandwidth(pinned_at(60.0, std::size_t{16} << 20), kChecked, gen5_x16(), Thresholds{});
  for (const Check& c : checks) {
    EXPECT_FALSE(c.applicable);
    EXPECT_NE(c.not_applicable_reason.find("checked size"), std::string::npos);
  }
}

TEST(LinkCheck, OneSizeBelowTheThresholdFailsItsDirectionAndIsNamed) {
  auto points = pinned_at(55.0);
  points[3] = point(Direction::HostToDevice, HostMemoryKind::Pinned, kChecked[1], {40, 40, 40});  // 256 MiB H2D
  const auto checks = check_link_bandwidth(points, kChecked, gen5_x16(), Thresholds{});
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_NE(checks[0].measured.find("256 MiB 40.0 GB/s"), std::string::npos) << checks[0].measured;
  EXPECT_NE(checks[0].measured.find("MISSED"), std::string::npos);
  EXPECT_TRUE(checks[1].passed);
}

TEST(Spread, MedianQuartilesAndCoefficientOfVariation) {
  const Spread s = spread_of({5, 1, 4, 2, 3});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.iqr(), 2);
  EXPECT_NEAR(s.cv, std::sqrt(2.5) / 3, 1e-12);  // sample standard deviation over the mean
  EXPECT_DOUBLE_EQ(spread_of({4, 1, 3, 2}).median, 2.5);
  EXPECT_DOUBLE_EQ(spread_of({4, 1, 3, 2}).q1, 1.75);  // interpolated between order statistics
  EXPECT_DOUBLE_EQ(spread_of({7, 7, 7}).cv, 0);
  EXPECT_DOUBLE_EQ(spread_of({7}).cv, 0);
  EXPECT_EQ(spread_of({}).n, 0u);
}

// A sequence of made-up attempts, handed out one per measurement.
struct Script {
  std::vector<double> medians;
  std::size_t next = 0;
  Attempt operator()() { return attempt_of({medians.at(next++)}); }
};

TEST(Confirm, AMetFigureIsMeasuredOnce) {
  Script script{{55}};
  const auto c = confirm(std::ref(script), [](const Attempt& a) { return a.spread.median >= 50; });
  EXPECT_EQ(c.attempts.size(), 1u);
  EXPECT_TRUE(c.met());
  EXPECT_DOUBLE_EQ(c.figure().spread.median, 55);
}

TEST(Confirm, AMissIsMeasuredAgainAndATransientOneDoesNotFail) {
  Script script{{45, 55, 99}};
  const auto c = confirm(std::ref(script), [](const Attempt& a) { return a.spread.median >= 50; });
  ASSERT_EQ(c.attempts.size(), 2u);  // stops at the first attempt that meets it
  EXPECT_TRUE(c.met());
  EXPECT_EQ(*c.accepted, 1u);
  EXPECT_DOUBLE_EQ(c.figure().spread.median, 55);
  EXPECT_DOUBLE_EQ(c.attempts[0].spread.median, 45);  // the miss is kept for the report
}

TEST(Confirm, APersistentMissFailsAfterEveryAttemptWithTheBestOfThem) {
  Script script{{30, 32, 31, 99}};
  const auto c = confirm(std::ref(script), [](const Attempt& a) { return a.spread.median >= 50; });
  EXPECT_EQ(c.attempts.size(), static_cast<std::size_t>(kConfirmAttempts));
  EXPECT_FALSE(c.met());
  EXPECT_DOUBLE_EQ(c.figure().spread.median, 32);
  const BandwidthPoint b = point_of(Direction::HostToDevice, HostMemoryKind::Pinned, 1, 1, c);
  EXPECT_TRUE(b.confirmed_miss);
  EXPECT_EQ(b.attempts.size(), 3u);
}

TEST(Reference, AFigureMoreThanThreePercentUnderTheReferenceIsMeasuredAgain) {
  // The floor is the threshold, or 97% of nvbandwidth's figure when that is higher; no reference: the threshold.
  EXPECT_DOUBLE_EQ(confirmation_floor(50.4, 55.0), 0.97 * 55.0);
  EXPECT_DOUBLE_EQ(confirmation_floor(50.4, 0.0), 50.4);
  EXPECT_DOUBLE_EQ(confirmation_floor(50.4, 40.0), 50.4);
  EXPECT_DOUBLE_EQ(confirmation_floor(0.0, 0.0), 0.0);
  // A 64 MiB figure of 51.6 beside nvbandwidth's 54.6 (an H100 run): met the threshold, measured again.
  const double floor = confirmation_floor(50.4, 54.64);
  Script script{{51.64, 54.70}};
  const ConfirmedFigure c = confirm(std::ref(script), [&](const Attempt& a) { return a.spread.median >= floor; });
  ASSERT_EQ(c.attempts.size(), 2u);
  EXPECT_DOUBLE_EQ(c.figure().spread.median, 54.70);
  auto points = pinned_at(55.0);
  points[0] = point_of(Direction::HostToDevice, HostMemoryKind::Pinned, kChecked[0], 2, c);
  points[0].floor_gbps = floor;
  const auto checks = check_link_bandwidth(points, kChecked, gen5_x16(), Thresholds{});
  EXPECT_TRUE(checks[0].passed);
  ASSERT_EQ(checks[0].attempts.size(), 2u);
  EXPECT_NE(checks[0].attempts[0].find("under 97% of nvbandwidth"), std::string::npos) << checks[0].attempts[0];
  EXPECT_EQ(checks[0].attempts[1].find("under"), std::string::npos) << checks[0].attempts[1];
  // One that stays under decides nothing by itself: the check still reads the threshold.
  Script stays{{51.0, 51.2, 51.1}};
  points[0] = point_of(Direction::HostToDevice, HostMemoryKind::Pinned, kChecked[0], 2,
                       confirm(std::ref(stays), [&](const Attempt& a) { return a.spread.median >= floor; }));
  points[0].floor_gbps = floor;
  EXPECT_TRUE(check_link_bandwidth(points, kChecked, gen5_x16(), Thresholds{})[0].passed);
}

TEST(LinkCheck, ShowsEveryAttemptOfAConfirmedFigure) {
  auto points = pinned_at(55.0);
  Script script{{30, 56}};
  points[0] = point_of(Direction::HostToDevice, HostMemoryKind::Pinned, kChecked[0], 2,
                       confirm(std::ref(script), [](const Attempt& a) { return a.spread.median >= 50.4; }));
  const auto checks = check_link_bandwidth(points, kChecked, gen5_x16(), Thresholds{});
  EXPECT_TRUE(checks[0].passed);
  ASSERT_EQ(checks[0].attempts.size(), 2u);
  EXPECT_NE(checks[0].attempts[0].find("missed"), std::string::npos);
  EXPECT_NE(checks[0].attempts[1].find("met"), std::string::npos);
}

TEST(Reference, RatioAndSideBySide) {
  EXPECT_DOUBLE_EQ((ReferenceFigure{"h2d", 1, 54.0, 55.0, {}, {}}.ratio()), 54.0 / 55.0);
  EXPECT_DOUBLE_EQ((ReferenceFigure{"h2d", 1, 54.0, 0, {}, {}}.ratio()), 0);
  Measurements m;
  m.bandwidth = BandwidthGroup{};
  m.bandwidth->reference = ReferenceComparison{"nvbandwidth", 3, 0.97, {{"h2d", 1, 53.9, 55.0, {55.0}, {52.0, 53.9}}}, {}};
  const nlohmann::json j = m;
  EXPECT_NEAR(j["reference"]["figures"][0]["ratio"].get<double>(), 0.98, 1e-9);
  EXPECT_DOUBLE_EQ(j["reference"]["figures"][0]["nvbandwidth_gbps"].get<double>(), 55.0);
  // Every attempt of ours survives the record: the report shows them.
  EXPECT_EQ(j.get<Measurements>().bandwidth->reference->figures[0].hazardlab_attempts_gbps,
            (std::vector<double>{52.0, 53.9}));
}

TEST(Reference, TheReferenceIsTheMedianOfItsRunsSoOneDippedRunDoesNotMoveIt) {
  const auto run = [](double h2d, double d2h) {
    ReferenceRun r;
    r.command = "nvbandwidth";
    r.gbps = {{"h2d", h2d}, {"d2h", d2h}};
    return r;
  };
  ReferenceRun failed;
  failed.command = "nvbandwidth -b 256";
  failed.error = "nvbandwidth exited with status 1";
  // One run dipped as nvbandwidth's did in 5 of 30 figures on a shared H100 (46.25 GB/s).
  const ReferenceFigures f = combine_runs({run(55.10, 55.17), run(46.25, 55.18), failed, run(55.02, 55.16)});
  EXPECT_DOUBLE_EQ(f.median.at("h2d"), 55.02);
  EXPECT_DOUBLE_EQ(f.median.at("d2h"), 55.17);
  EXPECT_EQ(f.values.at("h2d"), (std::vector<double>{55.10, 46.25, 55.02}));
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_EQ(f.errors[0], "nvbandwidth -b 256: nvbandwidth exited with status 1");
  // Ours at 54.9 GB/s is within 3% of that median, not of the dipped run.
  EXPECT_NEAR((ReferenceFigure{"h2d", 1, 54.9, f.median.at("h2d"), {}, {}}.ratio()), 0.998, 1e-3);
  EXPECT_TRUE(combine_runs({failed}).median.empty());
}

TEST(Reference, ReadsNvbandwidthJsonAndRefusesWhatItCannotTrust) {
  const std::string good = R"(warning text first
{"nvbandwidth": {"version": "v0.8", "testcases": [
  {"name": "host_to_device_memcpy_ce", "status": "Passed", "bandwidth_matrix": [["55.14"]], "sum": 55.14},
  {"name": "device_to_host_memcpy_ce", "status": "Passed", "bandwidth_matrix": [["55.11"]], "sum": 55.11}]}})";
  const auto figures = parse_nvbandwidth_json(good);
  EXPECT_DOUBLE_EQ(figures.at("host_to_device_memcpy_ce"), 55.14);
  EXPECT_DOUBLE_EQ(figures.at("device_to_host_memcpy_ce"), 55.11);
  EXPECT_THROW(parse_nvbandwidth_json("no json here"), std::runtime_error);
  EXPECT_THROW(parse_nvbandwidth_json(R"({"nvbandwidth": {"testcases": [{"name": "x", "status": "Waived"}]}})"),
               std::runtime_error);
  EXPECT_THROW(parse_nvbandwidth_json(R"({"nvbandwidth": {"error": "no GPU"}})"), std::runtime_error);
}

TEST(Reference, ABadToolPathIsASettingsErrorNamingIt) {
  ::setenv("HAZARDLAB_NVBANDWIDTH", "/nonexistent/nvbandwidth", 1);
  try {
    (void)reference_tool_from_environment();
    ADD_FAILURE() << "accepted a missing binary";
  } catch (const SettingsError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/nvbandwidth"), std::string::npos);
  }
  ::setenv("HAZARDLAB_NVBANDWIDTH", "off", 1);
  EXPECT_FALSE(reference_tool_from_environment().has_value());
  ::unsetenv("HAZARDLAB_NVBANDWIDTH");
}

TEST(LinkCheck, AnUnknownLinkIsNotApplicableAndSaysWhy) {
  DeviceFingerprint d = gen5_x16();
  d.pcie.available = false;
  d.pcie.unavailable_reason = "no NVML";
  for (const Check& c : check_link_bandwidth(pinned_at(55.0), kChecked, d, Thresholds{})) {
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
  const auto dir = fresh_dir("perf-report");
  PerfRecord record;
  record.part = MeasurementGroup::Bandwidth;
  record.profile = "quick";
  record.device_index = 0;
  record.status = PerfStatus::Measured;
  BandwidthGroup group;
  group.points = pinned_at(26.0);
  group.bidirectional = {{Direction::HostToDevice, 1, spread_of({40})}, {Direction::DeviceToHost, 1, spread_of({51})}};
  group.link_raw_gbps_per_direction = 63.0;
  record.measurements.bandwidth = group;
  record.checks = check_link_bandwidth(pinned_at(26.0), kChecked, gen5_x16(), Thresholds{});
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
  record.part = MeasurementGroup::Overlap;
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

TEST(PerfReport, AThresholdMeasuredBesideOtherWorkIsInconclusiveNeverPassOrFail) {
  PerfRecord record;
  record.part = MeasurementGroup::Overlap;
  record.device_index = 0;
  record.status = PerfStatus::Measured;
  record.checks = check_overlap({{HostMemoryKind::Pinned, true, 1, 5, 5, 5.1, 0.98}}, gen5_x16(), Thresholds{});
  ASSERT_TRUE(record.checks[0].passed);
  record.checks[0].untrusted_reason = "not measured alone on the host: another process held the host lock";
  const auto dir = std::filesystem::temp_directory_path() / ("hazardlab-untrusted-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  store_perf(dir, record);
  const auto loaded = load_perf(dir, 0);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_FALSE(loaded[0].checks[0].decided());  // the reason survives the run folder
  EXPECT_STREQ(loaded[0].checks[0].result_word(), "UNTRUSTED");

  VerdictInput in;
  in.measured = 1;
  in.untrusted_checks = 1;
  const auto [verdict, why] = decide_verdict(in);
  EXPECT_EQ(verdict, Verdict::Inconclusive);
  EXPECT_NE(why.find("beside other work"), std::string::npos);
}

namespace hazardlab::perf {
namespace {

// The host lock lines cases up behind a waiting measurement (host_lock.hpp): with a case holding it
// shared and a measurement waiting to hold it alone, the next case waits too, and the measurement gets
// it as soon as the first case is done. No timing is asserted: only who holds what.
TEST(HostLock, AWaitingMeasurementKeepsTheNextCaseWaiting) {
  const std::filesystem::path lock =
      std::filesystem::temp_directory_path() / ("hazardlab-selftest-host-lock-" + std::to_string(::getpid()));
  ::setenv("HAZARDLAB_HOST_LOCK", lock.c_str(), 1);
  std::optional<HostLock> first_case(std::in_place, HostLock::Mode::Shared, std::chrono::milliseconds(1000));
  ASSERT_TRUE(first_case->held()) << first_case->why_not();
  std::atomic<bool> measuring{false};
  std::thread measurement([&] {
    const HostLock alone(HostLock::Mode::Exclusive, std::chrono::minutes(1));
    measuring = alone.held();
    while (measuring) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  // Until the measurement holds the intent file, a shared request may still get in; once it waits, none.
  // (Cases come with gaps between them, which is when a polling measurement gets the intent file.)
  bool next_case_waited = false;
  for (int i = 0; i < 500 && !next_case_waited; ++i) {
    const HostLock next_case(HostLock::Mode::Shared, std::chrono::milliseconds(20));
    next_case_waited = !next_case.held();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(next_case_waited);
  EXPECT_FALSE(measuring.load());
  first_case.reset();
  while (!measuring) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const HostLock during(HostLock::Mode::Shared, std::chrono::milliseconds(20));
  EXPECT_FALSE(during.held());
  EXPECT_NE(during.why_not().find("held the host lock"), std::string::npos) << during.why_not();
  measuring = false;
  measurement.join();
  const HostLock after(HostLock::Mode::Shared, std::chrono::milliseconds(1000));
  EXPECT_TRUE(after.held()) << after.why_not();
  ::unsetenv("HAZARDLAB_HOST_LOCK");
  std::filesystem::remove(lock);
  std::filesystem::remove(lock.string() + ".intent");
}

}  // namespace
}  // namespace hazardlab::perf
