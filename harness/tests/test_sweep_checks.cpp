// The race-window sweep's self-checks (sweep/self_check.hpp) on made-up measurements: a healthy sweep
// passes them, and each way the instrument can break trips its check. No GPU: the data is what a
// broken sweep would have measured.
#include <gtest/gtest.h>

#include "sweep/self_check.hpp"

using namespace hazardlab;

namespace {

constexpr std::size_t KiB = 1024;

// A curve of the quick profile's delays; `achieved` maps each requested delay to what the events measured,
// `reproduced` how many of 20 trials showed the race at each.
WindowSeries curve(std::size_t bytes, HostAction action, double (*achieved)(double), int (*reproduced)(double)) {
  WindowSeries s{bytes, action, {}};
  for (const double us : {0.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0})
    s.points.push_back({us, achieved(us), bytes, action, 20, reproduced(us)});
  return s;
}

double honest_events(double us) { return us + 3.5; }  // the sleep, plus its launch
double events_not_around_the_sleep(double) { return 0.4; }
double nanoseconds_taken_for_microseconds(double us) { return us * 1000; }
int races_from_20_us(double us) { return us >= 20 ? 20 : us >= 5 ? 11 : 2; }
int never_races(double) { return 0; }

RaceWindow window(double (*achieved)(double), int (*reproduced)(double)) {
  RaceWindow w;
  w.profile = "quick";
  w.trials_per_point = 20;
  w.series = {curve(64 * KiB, HostAction::RewriteOneByte, achieved, races_from_20_us),
              curve(4096 * KiB, HostAction::RewriteAll, achieved, reproduced)};
  return w;
}

}  // namespace

TEST(SweepSelfCheck, AHealthySweepPassesEveryCheck) {
  const RaceWindow healthy = window(honest_events, races_from_20_us);
  EXPECT_EQ(delay_problem(healthy), std::nullopt);
  EXPECT_EQ(largest_delay_problem(healthy), std::nullopt);
  EXPECT_TRUE(sweep_self_check(healthy, {}, true).empty());
}

TEST(SweepSelfCheck, EventsThatDoNotBracketTheSleepTripTheDelayCheck) {
  const RaceWindow broken = window(events_not_around_the_sleep, races_from_20_us);
  const std::optional<std::string> problem = delay_problem(broken);
  ASSERT_TRUE(problem.has_value());
  // Every point from 10 us on (7 of each curve), and the first one named with its figures.
  EXPECT_NE(problem->find("at 14 of 14 points"), std::string::npos) << *problem;
  EXPECT_NE(problem->find("64 KiB, rewrite-one-byte: 10 us asked, 0.4 us measured"), std::string::npos) << *problem;
  // A sleep never ends early: the check stays on under a sanitizer.
  EXPECT_EQ(sweep_self_check(broken, {}, false).size(), 1u);
}

TEST(SweepSelfCheck, ASleepFarLongerThanAskedTripsTheDelayCheckWhenTimingIsChecked) {
  const RaceWindow broken = window(nanoseconds_taken_for_microseconds, races_from_20_us);
  EXPECT_TRUE(delay_problem(broken).has_value());
  EXPECT_EQ(sweep_self_check(broken, {}, true).size(), 1u);
  EXPECT_TRUE(sweep_self_check(broken, {}, false).empty());  // a sanitizer may slow a launch without bound
}

TEST(SweepSelfCheck, TheDelayToleranceIsTheStatedOne) {
  SweepTolerance tolerance;
  RaceWindow w = window(honest_events, races_from_20_us);
  WindowPoint& p = w.series[0].points.back();  // 1000 us asked
  p.achieved_delay_us = 0.8 * 1000;
  EXPECT_EQ(delay_problem(w, tolerance), std::nullopt);
  p.achieved_delay_us = 0.79 * 1000;
  EXPECT_TRUE(delay_problem(w, tolerance).has_value());
  p.achieved_delay_us = 3 * 1000 + 500;
  EXPECT_EQ(delay_problem(w, tolerance), std::nullopt);
  p.achieved_delay_us = 3 * 1000 + 501;
  EXPECT_TRUE(delay_problem(w, tolerance).has_value());
  w.series[0].points[2].achieved_delay_us = 0;  // 5 us asked: below the checked delays
  p.achieved_delay_us = 1000;
  EXPECT_EQ(delay_problem(w, tolerance), std::nullopt);
}

TEST(SweepSelfCheck, ACurveThatDoesNotReproduceAtItsLargestDelayTripsTheCheck) {
  const RaceWindow broken = window(honest_events, never_races);
  const std::optional<std::string> problem = largest_delay_problem(broken);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("4 MiB, rewrite-all reproduced in 0 of 20 trials at 1 ms"), std::string::npos) << *problem;
  EXPECT_EQ(problem->find("64 KiB"), std::string::npos) << *problem;  // that curve reproduced
  // Half the trials is the stated floor.
  RaceWindow half = window(honest_events, races_from_20_us);
  half.series[1].points.back().reproduced = 10;
  EXPECT_EQ(largest_delay_problem(half), std::nullopt);
  half.series[1].points.back().reproduced = 9;
  EXPECT_TRUE(largest_delay_problem(half).has_value());
  // Under a sanitizer every race moves: the check is not applied.
  EXPECT_TRUE(sweep_self_check(broken, {}, false).empty());
  EXPECT_EQ(sweep_self_check(broken, {}, true).size(), 1u);
}

TEST(SweepSelfCheck, MemoryOfAnotherKindThanClaimedTripsTheMemoryCheck) {
  const HostMemorySeen pinned{cudaMemoryTypeHost, cudaHostAllocMapped};  // page-locked memory on a UVA system
  const HostMemorySeen pageable{cudaMemoryTypeUnregistered, std::nullopt};
  const HostMemorySeen device{cudaMemoryTypeDevice, std::nullopt};
  const HostMemorySeen write_combined{cudaMemoryTypeHost, cudaHostAllocMapped | cudaHostAllocWriteCombined};
  EXPECT_EQ(memory_problem("the host buffer", HostMemoryKind::Pinned, pinned), std::nullopt);
  EXPECT_EQ(memory_problem("the host buffer", HostMemoryKind::Pageable, pageable), std::nullopt);
  EXPECT_EQ(memory_problem("the host buffer", HostMemoryKind::WriteCombined, write_combined), std::nullopt);

  const std::optional<std::string> wrong = memory_problem("the host buffer", HostMemoryKind::Pinned, pageable);
  ASSERT_TRUE(wrong.has_value());
  EXPECT_NE(wrong->find("the host buffer should be pinned memory, but CUDA sees memory CUDA does not know"),
            std::string::npos)
      << *wrong;
  EXPECT_TRUE(memory_problem("b", HostMemoryKind::Pinned, device).has_value());
  EXPECT_TRUE(memory_problem("b", HostMemoryKind::Pinned, write_combined).has_value());
  EXPECT_TRUE(memory_problem("b", HostMemoryKind::Pageable, pinned).has_value());
  EXPECT_TRUE(memory_problem("b", HostMemoryKind::WriteCombined, pinned).has_value());
  EXPECT_TRUE(memory_problem("b", HostMemoryKind::PinnedPortable, pinned).has_value());

  // A memory problem is kept first, whatever the timing checks say.
  const std::vector<std::string> problems =
      sweep_self_check(window(honest_events, races_from_20_us), {*wrong}, true);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], *wrong);
}
