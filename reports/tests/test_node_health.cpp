// Node health on the CPU: a health run is judged by its own profile's cases, its node line names the
// first GPU that did not pass and why, in words a drain reason can carry, and the soak's corrupted
// copies reach the reports with their offsets and a throughput plot.
#include <gtest/gtest.h>

#include "fleet_fixture.hpp"
#include "hazardlab/health_line.hpp"

using namespace hazardlab;
using namespace hazardlab::testing;

namespace {

// A health run of the fake catalogue: the control and the first guard, the link check and integrity.
RunContents health_run(int devices) {
  RunContents c = complete_run(devices);
  c.run.profile = RunProfile::Health;
  c.run.registered.clear();
  std::erase_if(c.results, [](const VariantResult& r) { return r.variant_id == "event-query"; });
  for (auto& [device, records] : c.perf) {
    records.clear();
    for (const MeasurementGroup part : {MeasurementGroup::Bandwidth, MeasurementGroup::Integrity})
      records.push_back(measured(part, device));
  }
  for (int d = 0; d < std::max(devices, 1); ++d) {
    const std::string label = device_label(devices ? d : -1);
    for (const char* name : {"/h2d-pinned-mutate/unsafe-mutate-after-call", "/h2d-pinned-mutate/stream-synchronize",
                             "/host-function-ordering/host-function-after-d2h", "/perf/bandwidth", "/perf/integrity"})
      c.run.registered.push_back(label + name);
  }
  return c;
}

void miss_link(RunContents& c, int device, double h2d_gbps) {
  for (PerfRecord& p : c.perf[device]) {
    if (p.part != MeasurementGroup::Bandwidth) continue;
    p.measurements = nlohmann::json{{"bandwidth",
                       {{{"direction", "h2d"}, {"host_memory", "pinned"}, {"bytes", 256u << 20}, {"median_gbps", h2d_gbps}},
                        {{"direction", "d2h"}, {"host_memory", "pinned"}, {"bytes", 256u << 20}, {"median_gbps", 55.0}}}},
                      {"link_raw_gbps_per_direction", 63.015},
                      {"link_threshold_gbps", 63.015 * 0.8},
                      {"checked_sizes", {256u << 20}}}.get<Measurements>();
    perf::Check check;
    check.id = "pinned-h2d-link-fraction";
    check.description = "pinned copies reach 80%";
    check.passed = h2d_gbps >= 63.015 * 0.8;
    check.measured = "256 MiB ...";
    p.checks = {check};
  }
}

}  // namespace

TEST(NodeHealth, AHealthRunIsCompleteWithItsProfilesCasesAndPasses) {
  const RunContents c = health_run(2);
  const auto reports = build_reports(c, true);
  ASSERT_EQ(reports.size(), 2u);
  for (const GpuReport& r : reports) {
    EXPECT_TRUE(r.complete()) << r.not_run.size() << " not run, first " << (r.not_run.empty() ? "" : r.not_run[0]);
    EXPECT_EQ(r.verdict, Verdict::Pass) << r.verdict_reason;
    EXPECT_EQ(r.hazards.size(), 2u);
    EXPECT_EQ(r.hazards[0].variants.size(), 2u);  // event-query is not in the profile, so not missing
  }
  EXPECT_EQ(node_health_line(reports, c.run), "hazardlab: PASS: 2 GPUs healthy (health profile)");
}

TEST(NodeHealth, AMissingCaseOfTheProfileStillMakesItPartial) {
  RunContents c = health_run(1);
  std::erase_if(c.results, [](const VariantResult& r) { return r.variant_id == "stream-synchronize"; });
  const auto reports = build_reports(c, true);
  EXPECT_EQ(reports[0].verdict, Verdict::Partial);
  EXPECT_EQ(reports[0].not_run, std::vector<std::string>{"gpu0/h2d-pinned-mutate/stream-synchronize"});
  EXPECT_EQ(node_health_line(reports, c.run).rfind("hazardlab: gpu0 (0000:00:00.0) PARTIAL: ", 0), 0u)
      << node_health_line(reports, c.run);
}

TEST(NodeHealth, ASlowLinkIsTheDrainReasonWithItsFigure) {
  RunContents c = health_run(4);
  miss_link(c, 3, 31.2);
  miss_link(c, 1, 30.0);
  const auto reports = build_reports(c, true);
  EXPECT_EQ(reports[3].verdict, Verdict::Fail);
  EXPECT_EQ(node_health_line(reports, c.run),
            "hazardlab: gpu1 (0000:01:00.0) FAIL: pinned H2D 30.0 GB/s < 80% of PCIe Gen5 x16 (+1 more GPU not PASS)");
  EXPECT_EQ(gpu_problem(reports[3]), "pinned H2D 31.2 GB/s < 80% of PCIe Gen5 x16");
}

TEST(NodeHealth, ABadCaseAndNoGpuAreNamed) {
  RunContents c = health_run(1);
  for (VariantResult& r : c.results)
    if (r.variant_id == "stream-synchronize") r.outcome = Outcome::Incorrect;
  auto reports = build_reports(c, true);
  EXPECT_EQ(node_health_line(reports, c.run),
            "hazardlab: gpu0 (0000:00:00.0) FAIL: h2d-pinned-mutate/stream-synchronize incorrect");
  RunContents none = health_run(0);
  reports = build_reports(none, true);  // the health profile requires a GPU
  EXPECT_EQ(node_health_line(reports, none.run), "hazardlab: FAIL: no usable GPU: no NVIDIA driver");
}

TEST(NodeHealth, ACorruptedSoakCopyReachesEveryReportWithItsOffset) {
  RunContents c = health_run(1);
  for (PerfRecord& p : c.perf[0]) {
    if (p.part != MeasurementGroup::Integrity) continue;
    p.measurements = nlohmann::json{{"soak",
                       {{"seconds", 1.5},
                        {"rounds", 1},
                        {"churns", 0},
                        {"bytes_per_copy", 8u << 20},
                        {"copies", {{{"copy", "pinned d2h"}, {"copies", 1}, {"bytes_verified", 8388607}, {"corrupted", 1}}}},
                        {"errors", {"pinned d2h, round 1: 1 byte(s) wrong from offset 4093 to 4093 (expected 0x3a, got "
                                    "0x3b): a wrong value"}},
                        {"samples", {{{"t_s", 0.5}, {"copy", "pinned d2h"}, {"gbps", 50.1}}}}}}}.get<Measurements>();
    perf::Check check;
    check.id = "copies-verified-byte-for-byte";
    check.description = "every copy arrives byte for byte";
    check.measured = "8 copies, 1 corrupted: first pinned d2h, round 1: 1 byte(s) wrong from offset 4093";
    p.checks = {check};
  }
  const auto reports = build_reports(c, true);
  EXPECT_EQ(reports[0].verdict, Verdict::Fail);
  EXPECT_NE(node_health_line(reports, c.run).find("copies-verified-byte-for-byte: 8 copies, 1 corrupted"),
            std::string::npos)
      << node_health_line(reports, c.run);
  const std::string md = report_to_markdown(reports[0]);
  EXPECT_NE(md.find("- pinned d2h, round 1: 1 byte(s) wrong from offset 4093"), std::string::npos) << md;
  const std::string html = report_to_html(reports[0]);
  EXPECT_NE(html.find("aria-label='soak throughput over time'"), std::string::npos);
  EXPECT_NE(html.find("offset 4093"), std::string::npos);
}

TEST(NodeHealth, AHealthRunIsAFleetRowMarkedWithItsProfile) {
  const std::filesystem::path base = fresh_dir("node-health-fleet");
  RunContents c = health_run(1);
  c.run.host = "node-h";
  c.run.id = RunId::make("20261122T000000Z", "node-h", 1).text();
  const std::filesystem::path run = write_run_folder(base / "results", c);
  FleetOptions options;
  options.out_dir = base / "fleet";
  const FleetReport fleet = merge_runs({run}, options);
  ASSERT_EQ(fleet.rows.size(), 1u);
  EXPECT_EQ(fleet.rows[0].profile, RunProfile::Health);
  EXPECT_FALSE(fleet.rows[0].partial);
  write_fleet_report(fleet, options.out_dir);
  const auto json = nlohmann::json::parse(read(options.out_dir / "fleet.json"));
  EXPECT_NE(json.dump().find("\"profile\":\"health\""), std::string::npos);
  EXPECT_NE(read(options.out_dir / "fleet.md").find("health profile"), std::string::npos);
}
