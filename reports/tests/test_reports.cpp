// The per-GPU report: built from a run's contents alone, readable by a machine and a person, and
// never a pass for what did not run.
#include <gtest/gtest.h>

#include "fake_run.hpp"
#include "hazardlab/atomic_file.hpp"
#include "hazardlab/document.hpp"
#include "hazardlab/result_store.hpp"

using namespace hazardlab;
using namespace hazardlab::testing;
namespace fs = std::filesystem;

TEST(Reports, ACompleteRunWhereEverythingHeldPasses) {
  const auto reports = build_reports(complete_run(1), false);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].verdict, Verdict::Pass) << reports[0].verdict_reason;
  EXPECT_TRUE(reports[0].complete());
  EXPECT_EQ(reports[0].totals.not_run, 0);
}

TEST(Reports, OneReportPerGpuEachWithItsOwnResults) {
  RunContents run = complete_run(2);
  for (VariantResult& r : run.results) {
    if (r.device_index == 1 && r.variant_id == "stream-synchronize") r.outcome = Outcome::Incorrect;
  }
  const auto reports = build_reports(run, false);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].verdict, Verdict::Pass);
  EXPECT_EQ(reports[1].verdict, Verdict::Fail);
  EXPECT_EQ(reports[0].file_stem(), "gpu0");
  EXPECT_EQ(reports[1].file_stem(), "gpu1");
}

TEST(Reports, AOneCaseRunIsPartialNamesWhatDidNotRunAndNeverPasses) {
  RunContents run = complete_run(1);
  run.results = {result("h2d-pinned-mutate", "unsafe-mutate-after-call", 0, Outcome::Reproduced, VariantKind::Control)};
  run.perf.clear();
  run.run.selection = selection_from_ctest_command({"ctest", "-R", "h2d-pinned-mutate/unsafe"});
  const auto reports = build_reports(run, false);
  EXPECT_EQ(reports[0].verdict, Verdict::Partial) << reports[0].verdict_reason;
  EXPECT_FALSE(reports[0].complete());
  EXPECT_EQ(reports[0].not_run.size(), 6u);  // 3 variants + 3 measurement groups
  EXPECT_EQ(reports[0].totals.not_run, 6);
  const std::string md = report_to_markdown(reports[0]);
  EXPECT_NE(md.find("**Verdict: PARTIAL**"), std::string::npos);
  EXPECT_NE(md.find("**Partial**"), std::string::npos);
  EXPECT_NE(md.find("`gpu0/perf/bandwidth`"), std::string::npos);
  EXPECT_NE(md.find("`-R h2d-pinned-mutate/unsafe`"), std::string::npos);
  EXPECT_EQ(md.find("PASS**"), std::string::npos);
  const nlohmann::json j = report_to_json(reports[0]);
  EXPECT_FALSE(j["run"]["complete"].get<bool>());
  EXPECT_FALSE(j["run"]["selection"]["all"].get<bool>());
  EXPECT_EQ(j["run"]["not_run"].size(), 6u);
}

TEST(Reports, ARunUnderASanitizerMissesThePerformanceGroupsAndSaysSo) {
  RunContents run = complete_run(1);
  run.perf.clear();
  run.run.sanitizer = "memcheck";
  const auto reports = build_reports(run, false);
  EXPECT_EQ(reports[0].verdict, Verdict::Partial);
  EXPECT_NE(report_to_markdown(reports[0]).find("compute-sanitizer `memcheck`"), std::string::npos);
}

TEST(Reports, JsonCarriesTheRunAndFollowsTheDocumentedSchema) {
  const auto reports = build_reports(complete_run(1), false);
  const nlohmann::json j = report_to_json(reports[0]);
  EXPECT_EQ(j["schema"], kReportSchema);
  EXPECT_EQ(j["schema_version"], kReportSchemaVersion);
  for (const char* key : {"hazardlab_version", "generated_at", "host", "device", "run", "verdict", "verdict_reason",
                          "totals", "hazards", "no_device_reason", "unknown_results", "performance"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["run"]["id"], "20261122T000000Z-testhost-1");
  EXPECT_EQ(j["run"]["settings"]["HAZARDLAB_TRIALS"]["value"], "100");
  EXPECT_GT(j["device"]["pcie"]["max_raw_gbps_per_direction"].get<double>(), 62.9);
  const auto& hazard = j["hazards"][0];
  for (const char* key : {"id", "title", "rules", "requirements", "explanation", "variants"}) {
    EXPECT_TRUE(hazard.contains(key)) << key;
  }
  for (const auto& v : hazard["variants"]) {
    EXPECT_TRUE(v.contains("variant") && v.contains("kind") && v.contains("outcome") && v.contains("title"));
  }
}

TEST(Reports, NoGpuGivesOneSkippedReportThatSaysWhy) {
  const RunContents run = complete_run(0);
  const auto reports = build_reports(run, false);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].verdict, Verdict::Skipped) << reports[0].verdict_reason;
  EXPECT_EQ(reports[0].file_stem(), "nogpu");
  const std::string md = report_to_markdown(reports[0]);
  EXPECT_NE(md.find("no NVIDIA driver"), std::string::npos);
  EXPECT_NE(md.find("SKIPPED"), std::string::npos);
  EXPECT_EQ(md.find("**Verdict: PASS"), std::string::npos);
  EXPECT_EQ(build_reports(run, true)[0].verdict, Verdict::Fail);
}

TEST(Reports, MarkdownShowsTheMinimalCaseAndHowToReplayIt) {
  RunContents run = complete_run(1);
  for (VariantResult& r : run.results) {
    if (r.variant_id != "event-query") continue;
    r.outcome = Outcome::Incorrect;
    r.minimal_case = {{"bytes", 4097}};
    r.reason = "wrong data";
  }
  const auto reports = build_reports(run, false);
  const std::string md = report_to_markdown(reports[0]);
  EXPECT_NE(md.find("**Verdict: FAIL**"), std::string::npos);
  EXPECT_NE(md.find("\"bytes\":4097"), std::string::npos);
  EXPECT_NE(md.find("HAZARDLAB_SEED=7"), std::string::npos);
  EXPECT_NE(md.find("gpu0/h2d-pinned-mutate/event-query"), std::string::npos);
}

TEST(Reports, JUnitHasATestcasePerVariantAndGroupWithSkippedAndFailuresMarked) {
  RunContents run = complete_run(1);
  run.results.erase(run.results.begin() + 1);  // stream-synchronize did not run
  for (VariantResult& r : run.results) {
    if (r.variant_id == "event-query") {
      r.outcome = Outcome::Incorrect;
      r.reason = "wrong <data> & \"more\"";
    }
  }
  const auto reports = build_reports(run, false);
  const std::string xml = report_to_junit(reports[0]);
  EXPECT_NE(xml.find("<testsuite name=\"hazardlab.gpu0\""), std::string::npos);
  EXPECT_NE(xml.find("tests=\"7\""), std::string::npos) << xml;  // 4 variants + 3 groups
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("skipped=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("wrong &lt;data&gt; &amp; &quot;more&quot;"), std::string::npos);
  EXPECT_NE(xml.find("name=\"stream-synchronize\""), std::string::npos);
  EXPECT_NE(xml.find("did not run in run"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"verdict\" value=\"FAIL\"/>"), std::string::npos);
}

TEST(Reports, HtmlColoursRowsByStanding) {
  RunContents run = complete_run(1);
  run.results[1].outcome = Outcome::Inconclusive;
  run.results[1].reason = "a gate timed out";
  const std::string html = report_to_html(build_reports(run, false)[0]);
  EXPECT_NE(html.find("<tr class='warn'>"), std::string::npos);
  EXPECT_NE(html.find("<tr class='good'>"), std::string::npos);
}

TEST(AtomicFile, AFailedWriteLeavesThePreviousFileWhole) {
  const fs::path dir = fresh_dir("atomic");
  const fs::path target = dir / "gpu0.json";
  write_file_atomically(target, "previous report\n");
  fs::create_directories(dir / "blocked.json");  // a directory where the file should go: rename fails
  EXPECT_THROW(write_file_atomically(dir / "blocked.json", "new"), std::runtime_error);
  write_file_atomically(target, "new report\n");
  EXPECT_EQ(read(target), "new report\n");
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << "left behind: " << entry.path();
  }
}

TEST(AtomicFile, WritesIntoANewDirectory) {
  const fs::path dir = fresh_dir("atomic-new") / "a" / "b";
  write_file_atomically(dir / "r.md", "x");
  EXPECT_EQ(read(dir / "r.md"), "x");
}

// Every chart of every report is drawn by doc::to_svg from its content: points placed by the axis's
// scale, every text escaped, dense series as lines only, and a chart with nothing to draw left out.
TEST(Plot, PlacesPointsByTheAxisScaleAndEscapesEveryText) {
  doc::Plot p;
  p.description = "size <against> rate";
  p.x_scale = doc::Plot::Scale::Log2;
  p.x_min = 1024;
  p.x_max = 1 << 20;
  p.y_max = 10;
  p.series.push_back({"pinned & mapped", {{1024, 0, "a"}, {32768, 5, "b"}, {1 << 20, 10, "c"}}, "", true});
  p.rules.push_back({8, "link's <raw> rate"});
  const std::string svg = doc::to_svg(p);
  // Plot area: x from 60 to 640-190 = 450; y from 320-50 = 270 (0) up to 30 (y_max).
  EXPECT_NE(svg.find("cx='60' cy='270'"), std::string::npos) << svg;
  EXPECT_NE(svg.find("cx='255' cy='150'"), std::string::npos) << "2^15 is half way from 2^10 to 2^20: " << svg;
  EXPECT_NE(svg.find("cx='450' cy='30'"), std::string::npos) << svg;
  EXPECT_NE(svg.find("pinned &amp; mapped"), std::string::npos);
  EXPECT_NE(svg.find("size &lt;against&gt; rate"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos) << "the rule is drawn dashed";
  EXPECT_EQ(svg.find("<raw>"), std::string::npos);

  p.series[0].dots = false;
  EXPECT_EQ(doc::to_svg(p).find("<circle"), std::string::npos) << "a dense series is a line only";
  doc::Document d;
  d.plot(doc::Plot{});
  EXPECT_TRUE(d.blocks.empty()) << "a chart with no series is left out";
}
