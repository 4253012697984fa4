// The outcome vocabulary and how outcomes add up to a GPU's verdict.
#include <gtest/gtest.h>

#include "hazardlab/outcome.hpp"
#include "hazardlab/report.hpp"

using namespace hazardlab;

TEST(Outcome, EveryOutcomeRoundTripsThroughItsName) {
  for (Outcome o : {Outcome::Passed, Outcome::Failed, Outcome::Incorrect, Outcome::Skipped, Outcome::Reproduced,
                    Outcome::NotReproduced, Outcome::Inconclusive, Outcome::Observed}) {
    const auto back = outcome_from_string(to_string(o));
    ASSERT_TRUE(back.has_value()) << to_string(o);
    EXPECT_EQ(*back, o);
  }
  EXPECT_FALSE(outcome_from_string("pass").has_value());
}

TEST(Outcome, SkippedAndInconclusiveNeverCountAsGood) {
  EXPECT_EQ(standing_of(Outcome::Skipped), Standing::NotRun);
  EXPECT_EQ(standing_of(Outcome::Inconclusive), Standing::Undecided);
  EXPECT_EQ(standing_of(Outcome::NotReproduced), Standing::Bad);
  EXPECT_EQ(standing_of(Outcome::Incorrect), Standing::Bad);
  EXPECT_EQ(standing_of(Outcome::Failed), Standing::Bad);
  EXPECT_EQ(standing_of(Outcome::Reproduced), Standing::Good);
}

TEST(Verdict, AnyFailureFailsTheGpuEvenBesidePasses) {
  const auto [v, why] = decide_verdict({{{{Outcome::Passed, 9}, {Outcome::Reproduced, 2}, {Outcome::Incorrect, 1}}}, true, false});
  EXPECT_EQ(v, Verdict::Fail);
  EXPECT_NE(why.find("1 case"), std::string::npos) << why;
}

TEST(Verdict, APositiveControlThatMissedFailsTheGpu) {
  EXPECT_EQ(decide_verdict({{{{Outcome::Passed, 4}, {Outcome::NotReproduced, 1}}}, true, false}).first, Verdict::Fail);
}

TEST(Verdict, InconclusiveIsNotAPass) {
  EXPECT_EQ(decide_verdict({{{{Outcome::Passed, 4}, {Outcome::Inconclusive, 1}}}, true, false}).first, Verdict::Inconclusive);
}

TEST(Verdict, OnlySkippedCasesAreSkippedNotPassed) {
  EXPECT_EQ(decide_verdict({{{{Outcome::Skipped, 14}}}, false, false}).first, Verdict::Skipped);
  EXPECT_EQ(decide_verdict({{{{Outcome::Skipped, 14}}}, true, false}).first, Verdict::Skipped);
}

TEST(Verdict, NoGpuFailsWhenAGpuIsRequired) {
  const auto [v, why] = decide_verdict({{{{Outcome::Skipped, 14}}}, false, true});
  EXPECT_EQ(v, Verdict::Fail);
  EXPECT_NE(why.find("HAZARDLAB_REQUIRE_GPU"), std::string::npos);
}

TEST(Verdict, CasesThatDidNotRunMakeItPartialNeverPass) {
  const auto [v, why] = decide_verdict({{{{Outcome::Passed, 3}, {Outcome::Observed, 1}}, 2}, true, false});
  EXPECT_EQ(v, Verdict::Partial);
  EXPECT_NE(why.find("2 did not run"), std::string::npos) << why;
  EXPECT_EQ(to_string(v), "PARTIAL");
}

TEST(Verdict, AFailureBesideCasesThatDidNotRunStillFails) {
  EXPECT_EQ(decide_verdict({{{{Outcome::Passed, 3}, {Outcome::Incorrect, 1}}, 2}, true, false}).first, Verdict::Fail);
  EXPECT_EQ(decide_verdict({{{{Outcome::Passed, 3}, {Outcome::Inconclusive, 1}}, 2}, true, false}).first,
            Verdict::Inconclusive);
}

// A case the caller saw fail that left no result (it could not write it, or it crashed) fails the GPU, which the
// report alone would call partial; what the rest of the report says follows.
TEST(Verdict, ACaseSeenFailingWithoutAResultFailsTheGpu) {
  VerdictInput in{{{{Outcome::Passed, 3}}, 2}, true, false};
  in.failed_without_result = 1;
  const auto [v, why] = decide_verdict(in);
  EXPECT_EQ(v, Verdict::Fail);
  EXPECT_EQ(why.rfind("1 case(s) FAILED without leaving a result", 0), 0u) << why;
  EXPECT_NE(why.find("; not every registered case ran: 2 did not run"), std::string::npos) << why;
}

TEST(Verdict, NothingThatRanAndNothingRegisteredMissingIsSkipped) {
  EXPECT_EQ(decide_verdict({{{}, 5}, true, false}).first, Verdict::Partial);
}

// The totals are keyed by Outcome: a name the record does not know is refused where it is read (a
// result file naming it is unreadable, which fails the GPU), so it never reaches the verdict as a count.
TEST(Verdict, AnUnknownOutcomeNameNeverReachesTheTotals) {
  EXPECT_FALSE(outcome_from_string("great").has_value());
}
