// The hazards registered in hazards/ are complete lessons, and the seed hazards are there.
#include <gtest/gtest.h>

#include "hazard/define.hpp"
#include "hazard/registry.hpp"

using namespace hazardlab;

namespace {

TrialFn a_trial() {
  return [](Rig&, const TrialCase&, const TrialSettings&) { return TrialObservation{}; };
}

Hazard a_lesson(std::vector<Variant> variants) {
  return Hazard{"x-y", "t", {{"doc", "sec", "says"}}, {}, std::string(100, 'e'), std::move(variants)};
}

}  // namespace

TEST(Registry, EveryHazardIsConsistent) {
  const auto problems = Registry::instance().consistency_problems();
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

TEST(Registry, TheSeedHazardsAreRegisteredWithTheirVariants) {
  const auto& r = Registry::instance();
  const std::pair<const char*, std::vector<const char*>> expected[] = {
      {"h2d-pinned-mutate",
       {"unsafe-mutate-after-call", "stream-synchronize", "event-synchronize", "event-query", "host-function"}},
      {"h2d-pageable-mutate", {"async-call-then-mutate", "sync-call-then-mutate"}},
      {"d2h-pinned-read-early",
       {"unsafe-read-after-call", "stream-synchronize", "event-synchronize", "event-query", "host-function"}},
      {"d2h-pageable-read", {"sync-call-then-read", "async-call-then-read"}},
  };
  for (const auto& [hazard_id, variants] : expected) {
    const Hazard* h = r.find(hazard_id);
    ASSERT_NE(h, nullptr) << hazard_id;
    for (const char* v : variants) EXPECT_NE(h->find_variant(v), nullptr) << hazard_id << '/' << v;
  }
}

TEST(Registry, AHazardWithAnUnsafeVariantHasAGuard) {
  Registry registry;
  Hazard h{"x-y", "t", {{"doc", "sec", "says"}}, {}, std::string(100, 'e'), {}};
  h.variants.push_back(make_variant(VariantKind::Control, "unsafe", "t", {}, a_trial()));
  registry.add(h);
  const auto problems = registry.consistency_problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("no guard"), std::string::npos) << problems[0];
}

TEST(Registry, DuplicateAndMalformedIdsAreReported) {
  Registry registry;
  const Hazard h{"Bad Id",
                 "t",
                 {{"doc", "sec", "says"}},
                 {},
                 std::string(100, 'e'),
                 {make_variant(VariantKind::Rule, "v", "t", {}, a_trial())}};
  registry.add(h);
  registry.add(h);
  const auto problems = registry.consistency_problems();
  EXPECT_GE(problems.size(), 3u);  // malformed id twice, duplicate once
}

TEST(Registry, AVariantRunsEitherATrialOrAMeasurementAndOnlyObservationsAndRulesMeasure) {
  Registry registry;
  Variant neither = make_variant(VariantKind::Rule, "neither", "t", {}, nullptr);
  Variant both = measurement("both", "t", [](const DeviceFingerprint&, const Settings&) { return VariantResult{}; });
  both.trial = a_trial();
  Variant measuring_guard = both;
  measuring_guard.id = "measuring-guard";
  measuring_guard.kind = VariantKind::Guard;
  measuring_guard.trial = nullptr;
  registry.add(a_lesson({neither, both, measuring_guard}));
  const auto problems = registry.consistency_problems();
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_NE(problems[0].find("'neither' needs either a trial or a measurement"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("'both' needs either a trial or a measurement"), std::string::npos) << problems[1];
  EXPECT_NE(problems[2].find("only an observation or a rule may do"), std::string::npos) << problems[2];
}

TEST(Registry, AParameterNeedsANameAndAMeaning) {
  Registry registry;
  CaseSpace space;
  space.parameters = {Parameter{"Slots", 1, 2, "slots"}, Parameter{"pages", 1, 2, ""}};
  registry.add(a_lesson({make_variant(VariantKind::Rule, "v", "t", space, a_trial())}));
  const auto problems = registry.consistency_problems();
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("parameter 'Slots'"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("parameter 'pages'"), std::string::npos) << problems[1];
}

TEST(Registry, OnlyObservationsNeedsASaidReason) {
  const Variant observed =
      measurement("o", "t", [](const DeviceFingerprint&, const Settings&) { return VariantResult{}; });
  Registry silent;
  silent.add(a_lesson({observed}));
  ASSERT_EQ(silent.consistency_problems().size(), 1u);
  EXPECT_NE(silent.consistency_problems()[0].find("only observations"), std::string::npos);
  Hazard explained = a_lesson({observed});
  explained.unjudged_because = "its model is still being checked against GPUs";
  Registry said;
  said.add(explained);
  EXPECT_TRUE(said.consistency_problems().empty());
}
