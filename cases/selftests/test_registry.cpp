// The hazards registered in hazards/ are complete lessons, and the seed hazards are there.
#include <gtest/gtest.h>

#include "hazardlab/hazard.hpp"

using namespace hazardlab;

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
  h.variants.push_back({"unsafe", VariantKind::Control, "t", [](const RunContext&) { return VariantResult{}; }});
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
                 {{"v", VariantKind::Rule, "t", [](const RunContext&) { return VariantResult{}; }}}};
  registry.add(h);
  registry.add(h);
  const auto problems = registry.consistency_problems();
  EXPECT_GE(problems.size(), 3u);  // malformed id twice, duplicate once
}
