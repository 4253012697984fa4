// The race window's arithmetic (headline, summary), its JSON, and how the reports show it. No CUDA:
// the curves here are made up; the GPU measures real ones.
#include <gtest/gtest.h>

#include "hazardlab/race_window.hpp"
#include "hazardlab/report.hpp"

using namespace hazardlab;

namespace {

WindowSeries series(std::size_t bytes, HostAction action, std::vector<std::pair<double, int>> reproduced_of_10) {
  WindowSeries s{bytes, action, {}};
  for (const auto& [us, n] : reproduced_of_10) s.points.push_back({us, us * 1.02, bytes, action, 10, n});
  return s;
}

RaceWindow h2d_window() {
  RaceWindow w;
  w.profile = "quick";
  w.trials_per_point = 10;
  w.series = {series(64 << 10, HostAction::RewriteAll, {{0, 3}, {2, 10}, {5, 10}}),
              series(4 << 20, HostAction::RewriteAll, {{0, 9}, {2, 10}, {5, 7}, {10, 10}, {20, 10}})};
  w.headline_series = 1;
  TutorialDemo demo;
  demo.code = "cpu_tensor.zero_()";
  demo.bytes = 4 << 20;
  demo.action = HostAction::RewriteAll;
  demo.sleep_cycles = 100'000'000;
  demo.sleep_after_copy = true;
  demo.sleep_us_here = 52'100;
  demo.trials = 10;
  demo.reproduced = 6;
  demo.elsewhere = "94 of 100 elsewhere";
  w.demos = {demo};
  return w;
}

}  // namespace

TEST(RaceWindow, TheHeadlineIsWhereEveryLargerDelayAlsoReproducedEveryTime) {
  const RaceWindow w = h2d_window();
  // 2 us reproduced 10 of 10, but 5 us only 7: full reproduction holds from 10 us on.
  ASSERT_TRUE(w.headline_us().has_value());
  EXPECT_DOUBLE_EQ(*w.headline_us(), 10);
  EXPECT_DOUBLE_EQ(*w.series[0].full_from_us(), 2);
  EXPECT_FALSE(w.never_reproduced());
}

TEST(RaceWindow, NoHeadlineWhenTheLargestDelayMissedATrial) {
  const WindowSeries s = series(4096, HostAction::None, {{0, 0}, {100, 10}, {1000, 9}});
  EXPECT_FALSE(s.full_from_us().has_value());
  RaceWindow w;
  w.series = {series(4096, HostAction::None, {{0, 0}, {1000, 0}})};
  EXPECT_TRUE(w.never_reproduced());
  EXPECT_NE(w.summary().find("Never reproduced without a gate"), std::string::npos) << w.summary();
}

TEST(RaceWindow, TheSummaryExplainsTheTutorialsDemoWithThisGpusFigures) {
  const std::string text = h2d_window().summary();
  EXPECT_NE(text.find("from 10 us"), std::string::npos) << text;
  EXPECT_NE(text.find("6 of 10 trials here (94 of 100 elsewhere)"), std::string::npos) << text;
  EXPECT_NE(text.find("_sleep(100000000) lasts 52.1 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("queued after the copy"), std::string::npos) << text;
  // The demo beside the sweep's own 0 us point at its size and host action: 9 of 10.
  EXPECT_NE(text.find("rewrite-all (this sweep's 0 us point, 4 MiB) reproduced in 9 of 10 trials"), std::string::npos)
      << text;
}

TEST(RaceWindow, JsonRoundTripsAndRejectsAnUnknownHostAction) {
  const RaceWindow w = h2d_window();
  const nlohmann::json j = w;
  EXPECT_EQ(j["headline_full_reproduction_from_us"], 10);
  const RaceWindow back = j.get<RaceWindow>();
  ASSERT_EQ(back.series.size(), 2u);
  EXPECT_EQ(back.series[1].points[3].reproduced, 10);
  EXPECT_EQ(back.demos.at(0).reproduced, 6);
  EXPECT_EQ(back.summary(), w.summary());
  nlohmann::json bad = j;
  bad["series"][0]["host_action"] = "shout";
  EXPECT_THROW((void)bad.get<RaceWindow>(), nlohmann::json::exception);
}

TEST(RaceWindow, FormatsSizesAndDelaysForPeople) {
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(std::size_t{100} * 999'999 * 8), "762.9 MiB");
  EXPECT_EQ(format_delay_us(0), "0 us");
  EXPECT_EQ(format_delay_us(1500), "1.5 ms");
}

namespace {
GpuReport report_with(const RaceWindow& w, Outcome control) {
  GpuReport report;
  HazardEntry he;
  he.hazard.id = "h2d-pinned-mutate";
  he.hazard.title = "title";
  VariantResult c;
  c.outcome = control;
  c.kind = VariantKind::Control;
  c.trials = c.reproduced = 100;
  he.variants.push_back({"unsafe", VariantKind::Control, "unsafe", c});
  VariantResult sweep;
  sweep.outcome = Outcome::Observed;
  sweep.kind = VariantKind::Observation;
  sweep.observations.race_window = w;
  he.variants.push_back({"race-window", VariantKind::Observation, "sweep", sweep});
  report.hazards.push_back(he);
  return report;
}
}  // namespace

TEST(RaceWindow, ReportsShowATableAPlotAndTheHeadline) {
  const GpuReport report = report_with(h2d_window(), Outcome::Reproduced);
  const std::string md = report_to_markdown(report);
  EXPECT_NE(md.find("## Race window"), std::string::npos);
  EXPECT_NE(md.find("| 10 us | 10.2 us | - | 10/10 |"), std::string::npos) << md;
  EXPECT_NE(md.find("6/10 (60%)"), std::string::npos) << md;
  const std::string html = report_to_html(report);
  EXPECT_NE(html.find("aria-label='reproduction rate against delay'"), std::string::npos);
  EXPECT_NE(html.find("tutorial: cpu_tensor.zero_()"), std::string::npos);
  const nlohmann::json j = report_to_json(report);
  ASSERT_EQ(j["race_windows"].size(), 1u);
  EXPECT_EQ(j["race_windows"][0]["full_reproduction_from_us"], 10);
  EXPECT_EQ(j["race_windows"][0]["gate_note"], "");
}

TEST(RaceWindow, AGatedControlThatReproducesBesideAFlatCurveGetsASentence) {
  RaceWindow flat;
  flat.profile = "quick";
  flat.series = {series(4096, HostAction::None, {{0, 0}, {1000, 0}})};
  const nlohmann::json shown = report_to_json(report_with(flat, Outcome::Reproduced));
  EXPECT_NE(shown["race_windows"][0]["gate_note"].get<std::string>().find("the gate is what makes it visible"),
            std::string::npos);
  const nlohmann::json not_shown = report_to_json(report_with(flat, Outcome::NotReproduced));
  EXPECT_EQ(not_shown["race_windows"][0]["gate_note"], "");
}
