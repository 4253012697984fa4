// Timed turns (perf/host_lock.hpp, perf/interference.hpp): the host lock's timing groups, where GPUs of different
// groups are timed at once, a GPU's measurement waits only for its own group and the several-GPU figures hold every
// group (who holds what is asserted, never a time); and the decision input on made-up figures: which GPUs' timed
// parts must take turns, and the least HAZARDLAB_TIMED_TURNS that keeps them apart.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "perf/host_lock.hpp"
#include "perf/interference.hpp"

using namespace hazardlab;
using namespace hazardlab::perf;

namespace {

// A host lock of this test's own, removed with its group files afterwards.
struct ScratchLock {
  std::filesystem::path base =
      std::filesystem::temp_directory_path() / ("hazardlab-selftest-timing-groups-" + std::to_string(::getpid()));
  ScratchLock() { ::setenv("HAZARDLAB_HOST_LOCK", base.c_str(), 1); }
  ~ScratchLock() {
    ::unsetenv("HAZARDLAB_HOST_LOCK");
    for (const std::string group : {"", ".numa0", ".numa1"}) {
      std::filesystem::remove(base.string() + group);
      std::filesystem::remove(base.string() + group + ".intent");
    }
  }
};

DeviceFingerprint gpu(int index, const std::string& bus) {
  DeviceFingerprint d;
  d.index = index;
  d.pci_bus_id = bus;
  return d;
}

constexpr std::chrono::milliseconds kBrief{20};

}  // namespace

TEST(TimingGroups, TheWholeHostIsOneGroupUnlessTheSettingSplitsIt) {
  const DeviceFingerprint a = gpu(0, "0000:17:00.0"), b = gpu(1, "0000:b1:00.0");
  EXPECT_EQ(timing_group(a, TimedTurns::Host), "");
  EXPECT_EQ(timing_groups({a, b}, TimedTurns::Host), (std::vector<std::string>{""}));
  EXPECT_EQ(timing_group(a, TimedTurns::Gpu), "gpu-0000-17-00.0");
  EXPECT_EQ(timing_groups({b, a}, TimedTurns::Gpu), (std::vector<std::string>{"gpu-0000-17-00.0", "gpu-0000-b1-00.0"}));
  // A bus id the kernel does not know has no NUMA node: the whole host's group.
  EXPECT_EQ(timing_group(gpu(2, "ffff:ff:1f.7"), TimedTurns::NumaNode), "");
}

TEST(TimingGroups, ASettingOtherThanTheDeclaredWordsIsRefused) {
  ::setenv("HAZARDLAB_TIMED_TURNS", "numa-node", 1);
  EXPECT_EQ(timed_turns_from_environment(), TimedTurns::NumaNode);
  ::setenv("HAZARDLAB_TIMED_TURNS", "socket", 1);
  EXPECT_ANY_THROW(timed_turns_from_environment());
  ::unsetenv("HAZARDLAB_TIMED_TURNS");
  EXPECT_EQ(timed_turns_from_environment(), TimedTurns::Host);
  EXPECT_EQ(setting_word(TimedTurns::Gpu), "gpu");
}

TEST(TimingGroups, GroupsAreLockedApartAndTheWholeHostLocksThemAll) {
  const ScratchLock scratch;
  EXPECT_EQ(HostLock::path(), scratch.base.string());
  EXPECT_EQ(HostLock::path("numa1"), scratch.base.string() + ".numa1");
  const HostLock node0(HostLock::Mode::Exclusive, kBrief, {"numa0"});
  ASSERT_TRUE(node0.held()) << node0.why_not();
  EXPECT_EQ(node0.files(), scratch.base.string() + ".numa0");
  {
    // Another node's measurement is timed at the same time; a case of the first node waits.
    const HostLock node1(HostLock::Mode::Exclusive, kBrief, {"numa1"});
    EXPECT_TRUE(node1.held()) << node1.why_not();
    const HostLock case_on_node0(HostLock::Mode::Shared, kBrief, {"numa0"});
    EXPECT_FALSE(case_on_node0.held());
  }
  // The several-GPU figures wait for every group...
  const HostLock whole(HostLock::Mode::Exclusive, kBrief, {"numa1", "numa0"});
  EXPECT_FALSE(whole.held());
  EXPECT_NE(whole.why_not().find(".numa0"), std::string::npos) << whole.why_not();
  EXPECT_EQ(whole.files(), scratch.base.string() + ".numa0," + scratch.base.string() + ".numa1");
}

TEST(TimingGroups, TheWholeHostHeldKeepsEveryGroupsCasesWaiting) {
  const ScratchLock scratch;
  std::optional<HostLock> whole(std::in_place, HostLock::Mode::Exclusive, kBrief,
                                std::vector<std::string>{"numa0", "numa1"});
  ASSERT_TRUE(whole->held()) << whole->why_not();
  for (const std::string group : {"numa0", "numa1"}) {
    const HostLock a_case(HostLock::Mode::Shared, kBrief, {group});
    EXPECT_FALSE(a_case.held()) << group;
  }
  whole.reset();
  const HostLock after(HostLock::Mode::Shared, kBrief, {"numa1"});
  EXPECT_TRUE(after.held()) << after.why_not();
}

namespace {

// Four GPUs, two per NUMA node (0 and 1 on node 0, 2 and 3 on node 1), each alone at 54 to 56 GB/s; every pair
// and all four at once at `at_once(a, b)` for GPU a beside GPU b (all four: b = -1).
InterferenceInput four_gpus(double (*at_once)(int, int)) {
  InterferenceInput in;
  in.gpus = {{0, 0}, {1, 0}, {2, 1}, {3, 1}};
  for (int g = 0; g < 4; ++g) in.configurations.push_back({{g}});
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) in.configurations.push_back({{a, b}});
  in.configurations.push_back({{0, 1, 2, 3}});
  for (std::size_t c = 0; c < in.configurations.size(); ++c) {
    const std::vector<int>& gpus = in.configurations[c].gpus;
    for (const int g : gpus) {
      for (const Direction d : {Direction::HostToDevice, Direction::DeviceToHost}) {
        if (gpus.size() == 1) {
          in.gbps[{c, g, d}] = {54.0, 55.0, 56.0, 55.5, 54.5};
          continue;
        }
        const int other = gpus.size() == 2 ? (gpus[0] == g ? gpus[1] : gpus[0]) : -1;
        const double v = at_once(g, other);
        in.gbps[{c, g, d}] = {v - 0.2, v, v + 0.2};
      }
    }
  }
  return in;
}

bool same_node(int a, int b) { return b >= 0 && a / 2 == b / 2; }

}  // namespace

TEST(Interference, NoFigureMovedBeyondItsSpreadNoTimedPartWaits) {
  const InterferenceDecision d = decide_timed_turns(four_gpus([](int, int) { return 55.2; }));
  EXPECT_EQ(d.turns, TimedTurns::Gpu);
  EXPECT_EQ(d.groups, (std::vector<std::vector<int>>{{0}, {1}, {2}, {3}}));
  for (const Disagreement& r : d.rows) EXPECT_FALSE(r.beyond);
}

TEST(Interference, OnlyGpusOfOneNodeDisagreeingTakeTurnsByNode) {
  const InterferenceDecision d =
      decide_timed_turns(four_gpus([](int a, int b) { return b < 0 || same_node(a, b) ? 41.0 : 55.0; }));
  EXPECT_EQ(d.turns, TimedTurns::NumaNode) << d.why;
  EXPECT_EQ(d.groups, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
}

TEST(Interference, GpusOfDifferentNodesDisagreeingTakeTurnsOnTheWholeHost) {
  const InterferenceDecision d = decide_timed_turns(four_gpus([](int, int) { return 47.0; }));
  EXPECT_EQ(d.turns, TimedTurns::Host) << d.why;
  EXPECT_EQ(d.groups, (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
}

TEST(Interference, AllAtOnceAloneDisagreeingKeepsTurnsByNode) {
  // Every pair within its spread, all four at once beyond it: not every GPU may be timed beside the others, but
  // one GPU per node may (the pairs across nodes held).
  const InterferenceDecision d = decide_timed_turns(four_gpus([](int, int b) { return b < 0 ? 40.0 : 55.0; }));
  EXPECT_EQ(d.turns, TimedTurns::NumaNode) << d.why;
  // On one node, all at once beyond the spread keeps every turn.
  InterferenceInput one_node = four_gpus([](int, int b) { return b < 0 ? 40.0 : 55.0; });
  for (PlacedGpu& p : one_node.gpus) p.numa_node = 0;
  EXPECT_EQ(decide_timed_turns(one_node).turns, TimedTurns::Host);
}

TEST(Interference, AFigureAboveItsSpreadDisagreesToo) {
  const InterferenceDecision d = decide_timed_turns(four_gpus([](int, int) { return 58.0; }));
  EXPECT_NE(d.turns, TimedTurns::Gpu);
  EXPECT_NEAR(d.rows.front().change, (58.0 - 55.0) / 55.0, 1e-9);
}

TEST(Interference, OneNodeForAllTakesTurnsOnTheWholeHost) {
  InterferenceInput in = four_gpus([](int a, int b) { return same_node(a, b) ? 41.0 : 55.0; });
  for (PlacedGpu& p : in.gpus) p.numa_node = 0;
  EXPECT_EQ(decide_timed_turns(in).turns, TimedTurns::Host);
  for (PlacedGpu& p : in.gpus) p.numa_node = -1;
  EXPECT_EQ(decide_timed_turns(in).turns, TimedTurns::Host);
}

TEST(Interference, AGpuWithoutFiguresAloneIsRefused) {
  InterferenceInput in = four_gpus([](int, int) { return 55.0; });
  in.gbps.erase({0, 0, Direction::HostToDevice});
  EXPECT_THROW(decide_timed_turns(in), std::invalid_argument);
  EXPECT_EQ(configuration_name({{0, 2}}), "gpu0+gpu2");
  EXPECT_EQ(configuration_name({{3}}), "gpu3 alone");
}
