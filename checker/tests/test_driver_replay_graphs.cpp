// Graphs as the injected library reads them at instantiation (checker/inject/graph_steps.hpp: the nodes' types and
// parameters and the edges the driver lists), kept per executable in the core's handles and run at each launch:
// replayed on the CPU, the driver's answers written down as a GPU run would get them.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "checker/core/checker.hpp"
#include "checker/core/handles.hpp"
#include "checker/inject/core_steps.hpp"
#include "checker/inject/graph_steps.hpp"
#include "checker/tests/no_protection.hpp"

namespace hazardlab::check::inject {
namespace {

constexpr std::uintptr_t kBuffer = 0x7f0000100000, kOther = 0x7f0000200000;

struct Replay {
  NoProtection protection;
  Checker checker{protection};
  Handles handles;
  const StreamKey a{1, 0xa}, b{1, 0xb};
  Replay() {
    checker.stream_created(a, StreamKind::NonBlocking);
    checker.stream_created(b, StreamKind::NonBlocking);
    allocated(checker, Allocated{Allocation::Device, kBuffer, 4096});
    allocated(checker, Allocated{Allocation::Device, kOther, 4096});
  }
  // A kernel node as cuGraphKernelNodeGetParams and the kernel's parameter layout give it: one pointer argument.
  DriverNode kernel_node(std::uintptr_t pointer, ArgumentAccess access) {
    const KernelArgument argument{std::as_bytes(std::span(&pointer, 1)), access};
    DriverNode node;
    node.type = CU_GRAPH_NODE_TYPE_KERNEL;
    node.kernel = LaunchAccesses{checker.allocations().kernel_ranges(std::span(&argument, 1)), "scale", true};
    return node;
  }
  static DriverNode memset_node(std::uintptr_t begin) {
    DriverNode node;
    node.type = CU_GRAPH_NODE_TYPE_MEMSET;
    node.memset = CUDA_MEMSET_NODE_PARAMS{begin, 0, 0, 4, 16, 1};
    return node;
  }
  static DriverNode of_type(CUgraphNodeType type) {
    DriverNode node;
    node.type = type;
    return node;
  }
  // Instantiated as executable `executable`, and launched on `stream`.
  bool instantiate(std::uint64_t executable, const DriverGraph& graph) {
    return handles.executable_nodes(executable, followed_graph(graph).nodes);
  }
  void launch(std::uint64_t executable, StreamKey stream) {
    const GraphLaunchWork work = handles.launch_of(executable);
    ASSERT_NE(work.nodes, nullptr);
    checker.graph_launched(stream, *work.nodes, [] { return SiteId{7}; });
  }
};

// torch.cuda.graph's capture of `y = x * 2` on one stream and `x.zero_()` on a side stream it never joined back:
// two nodes and no edge between them.
TEST(DriverReplayGraphs, TwoNodesOfACapturedGraphWithNoEdgeRace) {
  Replay r;
  ASSERT_TRUE(r.instantiate(
      0xe1, DriverGraph{{r.kernel_node(kBuffer, ArgumentAccess::ReadOnly), Replay::memset_node(kBuffer)}, {}}));
  r.launch(0xe1, r.a);
  const std::vector<Finding> races = r.checker.take_races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].race->earlier.api, "cuGraphLaunch kernel node");
  EXPECT_EQ(races[0].race->earlier.kernel, "scale");
  EXPECT_EQ(races[0].race->later.api, "cuGraphLaunch memset node");
  EXPECT_EQ(races[0].race->later.work, DeviceWorkKind::Memset);
}

TEST(DriverReplayGraphs, TheSameNodesOrderedByTheEdgeTheDriverListsAreClean) {
  Replay r;
  ASSERT_TRUE(r.instantiate(
      0xe1,
      DriverGraph{{r.kernel_node(kBuffer, ArgumentAccess::ReadOnly), Replay::memset_node(kBuffer)}, {{0, 1, true}}}));
  r.launch(0xe1, r.a);
  r.launch(0xe1, r.b);
  EXPECT_TRUE(r.checker.take_races().empty());
}

// A memcpy node from one device buffer into another: it reads and writes exactly its bytes, and races with a kernel
// on another stream reading its destination.
TEST(DriverReplayGraphs, AMemcpyNodeRacesWithAKernelOnAnotherStreamReadingItsDestination) {
  Replay r;
  DriverNode copy = Replay::of_type(CU_GRAPH_NODE_TYPE_MEMCPY);
  copy.copy.srcMemoryType = copy.copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.copy.srcDevice = kOther;
  copy.copy.dstDevice = kBuffer;
  copy.copy.WidthInBytes = 256;
  copy.copy.Height = copy.copy.Depth = 1;
  ASSERT_TRUE(r.instantiate(0xe1, DriverGraph{{copy}, {}}));
  r.launch(0xe1, r.a);
  const std::uintptr_t past_the_copy = kBuffer + 256;
  const KernelArgument beyond{std::as_bytes(std::span(&past_the_copy, 1)), ArgumentAccess::ReadOnly};
  r.checker.device_work(r.b,
                        DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel,
                                       r.checker.allocations().kernel_ranges(std::span(&beyond, 1)), "sum"},
                        [] { return SiteId{8}; });
  EXPECT_TRUE(r.checker.take_races().empty()) << "a byte the copy does not write";
  r.checker.device_work(
      r.b,
      DeviceWorkItem{
          "cuLaunchKernel", DeviceWorkKind::Kernel, {{kBuffer + 8, kBuffer + 9, DeviceAccessKind::Read}}, "sum"},
      [] { return SiteId{9}; });
  ASSERT_EQ(r.checker.take_races().size(), 1u);
}

// A child graph's nodes are nodes of the graph, between the child node's predecessors and its successors.
TEST(DriverReplayGraphs, AChildGraphsNodesAreOrderedByTheChildNodesEdges) {
  Replay r;
  DriverNode child = Replay::of_type(CU_GRAPH_NODE_TYPE_GRAPH);
  child.child.push_back(DriverGraph{{r.kernel_node(kBuffer, ArgumentAccess::ReadOnly)}, {}});
  const DriverGraph ordered{{Replay::memset_node(kBuffer), child, Replay::memset_node(kBuffer)},
                            {{0, 1, true}, {1, 2, true}}};
  ASSERT_TRUE(r.instantiate(0xe1, ordered));
  r.launch(0xe1, r.a);
  EXPECT_TRUE(r.checker.take_races().empty());
  const DriverGraph unordered{{Replay::memset_node(kBuffer), child}, {}};
  ASSERT_TRUE(r.instantiate(0xe2, unordered));
  r.launch(0xe2, r.a);
  EXPECT_EQ(r.checker.take_races().size(), 1u) << "the child's kernel and the memset beside the child node";
}

// Host, empty and memory nodes order by their edges; an event record or wait node, a conditional node or a
// programmatic edge orders the graph with work the checker cannot see: such a graph is not followed (its launch is
// one item of its stream) and says why.
TEST(DriverReplayGraphs, NodesThatOnlyOrderAreFollowedAndAGraphWithAnUnmodeledNodeOrEdgeIsNot) {
  Replay r;
  const DriverGraph through_host{
      {Replay::memset_node(kBuffer), Replay::of_type(CU_GRAPH_NODE_TYPE_HOST), Replay::memset_node(kBuffer)},
      {{0, 1, true}, {1, 2, true}}};
  ASSERT_TRUE(r.instantiate(0xe1, through_host));
  r.launch(0xe1, r.a);
  EXPECT_TRUE(r.checker.take_races().empty());
  const FollowedGraph with_record = followed_graph(
      DriverGraph{{Replay::memset_node(kBuffer), Replay::of_type(CU_GRAPH_NODE_TYPE_EVENT_RECORD)}, {{0, 1, true}}});
  EXPECT_FALSE(with_record.nodes);
  EXPECT_EQ(with_record.not_followed_because, "an event record node");
  const FollowedGraph programmatic =
      followed_graph(DriverGraph{{Replay::memset_node(kBuffer), Replay::memset_node(kOther)}, {{0, 1, false}}});
  EXPECT_FALSE(programmatic.nodes);
  EXPECT_EQ(programmatic.not_followed_because, "a programmatic edge");
  EXPECT_FALSE(r.instantiate(0xe2, DriverGraph{{Replay::of_type(CU_GRAPH_NODE_TYPE_CONDITIONAL)}, {}}));
  EXPECT_EQ(r.handles.launch_of(0xe2).nodes, nullptr);
}

// A graph not followed for its event nodes still orders by them, whole: the launch stream waits for what its wait
// nodes wait for before the launch, and records what its record nodes record after it.
TEST(DriverReplayGraphs, AGraphNotFollowedOrdersByItsEventNodesAsAWholeLaunch) {
  Replay r;
  DriverNode record = Replay::of_type(CU_GRAPH_NODE_TYPE_EVENT_RECORD);
  DriverNode wait = Replay::of_type(CU_GRAPH_NODE_TYPE_WAIT_EVENT);
  record.event = 0xe1;
  wait.event = 0xe2;
  DriverNode child = Replay::of_type(CU_GRAPH_NODE_TYPE_GRAPH);
  child.child.push_back(DriverGraph{{record}, {}});
  const DriverGraph graph{{wait, Replay::memset_node(kOther), child}, {{0, 1, true}, {1, 2, true}}};
  ASSERT_FALSE(followed_graph(graph).nodes);
  const GraphEvents events = graph_events(graph);
  EXPECT_EQ(events.recorded, std::vector<std::uint64_t>{0xe1});
  EXPECT_EQ(events.waited, std::vector<std::uint64_t>{0xe2});

  r.checker.event_created(0xe1);
  r.checker.event_created(0xe2);
  auto kernel = [&](StreamKey stream, std::uintptr_t pointer, ArgumentAccess access, SiteId site) {
    r.checker.device_work(stream, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel,
                                                 r.kernel_node(pointer, access).kernel.ranges, "k"},
                          [site] { return site; });
  };
  kernel(r.b, kOther, ArgumentAccess::MayWrite, 1);  // b writes what a reads after the graph waited for it
  r.checker.event_recorded(0xe2, r.b);
  kernel(r.a, kBuffer, ArgumentAccess::MayWrite, 2);  // a writes what b reads after waiting for the graph's record
  unfollowed_launch(r.checker, r.a, events, [&] { r.checker.work_enqueued(r.a); });
  kernel(r.a, kOther, ArgumentAccess::ReadOnly, 3);
  r.checker.stream_waited_event(r.b, 0xe1);
  kernel(r.b, kBuffer, ArgumentAccess::ReadOnly, 4);
  EXPECT_TRUE(r.checker.take_races().empty());
  // Without its events, the same launch orders nothing.
  kernel(r.b, kOther + 64, ArgumentAccess::MayWrite, 5);
  r.checker.event_recorded(0xe2, r.b);
  unfollowed_launch(r.checker, r.a, GraphEvents{}, [&] { r.checker.work_enqueued(r.a); });
  kernel(r.a, kOther + 64, ArgumentAccess::ReadOnly, 6);
  EXPECT_EQ(r.checker.take_races().size(), 1u);
}

// An executable updated, or a node's parameters set on it, no longer runs what was read: not followed from then on.
TEST(DriverReplayGraphs, AnExecutableChangedAfterItsInstantiationIsNoLongerFollowed) {
  Replay r;
  ASSERT_TRUE(r.instantiate(0xe1, DriverGraph{{Replay::memset_node(kBuffer)}, {}}));
  EXPECT_NE(r.handles.launch_of(0xe1).nodes, nullptr);
  EXPECT_EQ(r.handles.executable_changed(0xe1), std::optional<std::uint64_t>{1}) << "its instance, whose lanes go back";
  EXPECT_EQ(r.handles.launch_of(0xe1).nodes, nullptr);
  EXPECT_EQ(r.handles.executable_changed(0xe1), std::nullopt);
  // Instantiated again into the same handle: the instance it replaces is given back.
  ASSERT_TRUE(r.instantiate(0xe1, DriverGraph{{Replay::memset_node(kBuffer)}, {}}));
  std::optional<std::uint64_t> gone;
  ASSERT_TRUE(
      r.handles.executable_nodes(0xe1, followed_graph(DriverGraph{{Replay::memset_node(kBuffer)}, {}}).nodes, &gone));
  EXPECT_EQ(gone, std::optional<std::uint64_t>{2});
}

TEST(DriverReplayGraphs, AKernelNodeWhoseParametersTheDriverCannotListTouchesNothingAndIsNamed) {
  DriverNode unknown = Replay::of_type(CU_GRAPH_NODE_TYPE_KERNEL);
  unknown.kernel = LaunchAccesses{{}, "opaque", false};
  const FollowedGraph followed = followed_graph(DriverGraph{{unknown}, {}});
  ASSERT_TRUE(followed.nodes);
  EXPECT_TRUE((*followed.nodes)[0].ranges.empty());
  EXPECT_EQ(followed.kernels_without_layout, std::vector<std::string>{"opaque"});
}

TEST(DriverReplayGraphs, APitchedMemsetNodeWritesEachRowAtItsPitch) {
  const std::vector<DeviceRange> rows = memset_node_ranges(CUDA_MEMSET_NODE_PARAMS{kBuffer, 512, 0, 2, 32, 3});
  ASSERT_EQ(rows.size(), 3u);
  for (std::size_t row = 0; row < 3; ++row) {
    EXPECT_EQ(rows[row].begin, kBuffer + row * 512);
    EXPECT_EQ(rows[row].end, kBuffer + row * 512 + 64);
  }
  EXPECT_EQ(memset_node_ranges(CUDA_MEMSET_NODE_PARAMS{kBuffer, 0, 0, 4, 16, 1}).at(0).end, kBuffer + 64);
}

}  // namespace
}  // namespace hazardlab::check::inject
