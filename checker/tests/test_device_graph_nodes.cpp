// The nodes of a launched graph as items of device work with the graph's own edges (checker/core/graph_nodes.hpp,
// graph_launch.cpp), on the CPU: races inside a graph and between a graph and a stream are found, and nodes ordered
// by edges, by the launch stream or by a previous launch of the same executable are clean.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "checker/core/checker.hpp"
#include "checker/core/graph_nodes.hpp"
#include "checker/tests/no_protection.hpp"

namespace hazardlab::check {
namespace {

constexpr std::uintptr_t kBuffer = 0x7f0000000000, kOther = 0x7f0000100000;

struct Program {
  NoProtection protection;
  Checker checker{protection};
  const StreamKey a{1, 0xa}, b{1, 0xb}, legacy{1, 0};
  Program() {
    checker.stream_created(a, StreamKind::NonBlocking);
    checker.stream_created(b, StreamKind::NonBlocking);
    checker.allocations().device_visible(kBuffer, 4096);
    checker.allocations().device_visible(kOther, 4096);
  }
  // What a kernel handed `pointer` (a `T*`: it may write through it) touches, by the rule.
  std::vector<DeviceRange> kernel_touches(std::uintptr_t pointer, ArgumentAccess access = ArgumentAccess::MayWrite) {
    const KernelArgument argument{std::as_bytes(std::span(&pointer, 1)), access};
    return checker.allocations().kernel_ranges(std::span(&argument, 1));
  }
  GraphNode kernel_node(std::uintptr_t pointer, std::vector<std::size_t> after = {},
                        ArgumentAccess access = ArgumentAccess::MayWrite) {
    return GraphNode{GraphNodeRole::DeviceWork,       DeviceWorkKind::Kernel, "cuGraphLaunch kernel node", "fill",
                     kernel_touches(pointer, access), std::move(after)};
  }
  GraphNode memset_node(std::uintptr_t begin, std::vector<std::size_t> after = {}) {
    return GraphNode{GraphNodeRole::DeviceWork,
                     DeviceWorkKind::Memset,
                     "cuGraphLaunch memset node",
                     "",
                     {{begin, begin + 64, DeviceAccessKind::Write}},
                     std::move(after)};
  }
  void kernel(StreamKey stream, std::uintptr_t pointer, SiteId site, ArgumentAccess access = ArgumentAccess::MayWrite) {
    checker.device_work(
        stream, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel, kernel_touches(pointer, access), "use"},
        [site] { return site; });
  }
  void launch(StreamKey stream, const GraphNodes& graph, SiteId site) {
    checker.graph_launched(stream, graph, [site] { return site; });
  }
};

GraphNodes graph_of(std::uint64_t instance, std::vector<GraphNode> nodes) {
  return *graph_nodes(instance, std::move(nodes));
}

TEST(DeviceGraphNodes, TwoKernelNodesOfOneGraphWithNoEdgeBetweenThemRace) {
  Program p;
  p.launch(p.a, graph_of(1, {p.kernel_node(kBuffer), p.kernel_node(kBuffer, {}, ArgumentAccess::ReadOnly)}), 7);
  const std::vector<Finding> races = p.checker.take_races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].race->earlier.api, "cuGraphLaunch kernel node");
  EXPECT_EQ(races[0].race->later.api, "cuGraphLaunch kernel node");
  EXPECT_EQ(races[0].race->later.kernel, "fill");
  EXPECT_EQ(races[0].race->earlier.stream, p.a.handle) << "a node is named by its launch's stream";
  EXPECT_EQ(races[0].race->earlier.stream_kind, StreamKind::NonBlocking);
  EXPECT_EQ(races[0].address, kBuffer);
  EXPECT_NE(races[0].smallest_fix().find("cudaGraphAddDependencies"), std::string::npos) << races[0].smallest_fix();
  EXPECT_NE(races[0].missing().find("no path of edges"), std::string::npos) << races[0].missing();
}

TEST(DeviceGraphNodes, TwoKernelNodesOrderedByAnEdgeAreClean) {
  Program p;
  p.launch(p.a, graph_of(1, {p.kernel_node(kBuffer), p.kernel_node(kBuffer, {0}, ArgumentAccess::ReadOnly)}), 7);
  EXPECT_TRUE(p.checker.take_races().empty());
}

TEST(DeviceGraphNodes, AChainOfNodesThroughNodesThatOnlyOrderIsClean) {
  Program p;
  GraphNode host_node{GraphNodeRole::OrderOnly, DeviceWorkKind::Kernel, "cuGraphLaunch host node", "", {}, {1}};
  GraphNode memset{GraphNodeRole::DeviceWork,
                   DeviceWorkKind::Memset,
                   "cuGraphLaunch memset node",
                   "",
                   {{kBuffer, kBuffer + 64, DeviceAccessKind::Write}},
                   {2}};
  // Listed out of order: the graph's edges, not the driver's listing, decide.
  p.launch(p.a,
           graph_of(1, {p.kernel_node(kBuffer, {3}, ArgumentAccess::ReadOnly), p.kernel_node(kBuffer),
                        std::move(host_node), std::move(memset)}),
           7);
  EXPECT_TRUE(p.checker.take_races().empty());
}

TEST(DeviceGraphNodes, NodesOnDisjointBytesNeverRaceAndAReadBesideAReadIsClean) {
  Program p;
  p.launch(p.a,
           graph_of(1, {p.kernel_node(kBuffer), p.kernel_node(kOther),
                        p.kernel_node(kBuffer + 8, {}, ArgumentAccess::ReadOnly),
                        p.kernel_node(kBuffer + 8, {}, ArgumentAccess::ReadOnly)}),
           7);
  EXPECT_TRUE(p.checker.take_races().empty());
}

// A fork: B follows A on A's lane, C follows A alone on a lane of its own, D joins both. C is ordered after A, not
// after B, though B is the latest item of the lane C's predecessor is on.
TEST(DeviceGraphNodes, ANodeAfterAForkIsOrderedAfterItsPredecessorAndNotAfterItsSibling) {
  Program p;
  const GraphNodes graph =
      graph_of(1, {p.memset_node(kOther), p.memset_node(kBuffer, {0}),
                   p.kernel_node(kBuffer, {0}, ArgumentAccess::ReadOnly), p.memset_node(kBuffer, {1, 2})});
  EXPECT_EQ(graph.lanes, 2u);
  EXPECT_EQ(graph.nodes[1].lane, graph.nodes[0].lane);
  EXPECT_NE(graph.nodes[2].lane, graph.nodes[0].lane);
  p.launch(p.a, graph, 7);
  const std::vector<Finding> races = p.checker.take_races();
  ASSERT_EQ(races.size(), 1u) << "B and C race; A orders both, and D follows both";
  EXPECT_EQ(races[0].race->earlier.work, DeviceWorkKind::Memset);
  EXPECT_EQ(races[0].race->later.kernel, "fill");
}

TEST(DeviceGraphNodes, AChainCapturedFromOneStreamIsOneLane) {
  Program p;
  std::vector<GraphNode> chain;
  for (std::size_t i = 0; i < 100; ++i)
    chain.push_back(i == 0 ? p.memset_node(kBuffer) : p.memset_node(kBuffer, {i - 1}));
  const GraphNodes graph = graph_of(1, std::move(chain));
  EXPECT_EQ(graph.lanes, 1u);
  p.launch(p.a, graph, 7);
  p.launch(p.b, graph, 8);
  EXPECT_TRUE(p.checker.take_races().empty());
}

// A program that instantiates, launches and destroys a graph each step reuses the lanes of the executable gone.
TEST(DeviceGraphNodes, TheLanesOfAnExecutableGoneAreReusedInItsContext) {
  Program p;
  for (std::uint64_t step = 1; step <= 10; ++step) {
    p.launch(p.a, graph_of(step, {p.memset_node(kBuffer), p.memset_node(kOther)}), 7);
    p.checker.stream_synchronized(p.a);
    p.checker.graph_instance_gone(step);
  }
  EXPECT_EQ(p.checker.graph_lanes_made(), 2u);
  EXPECT_TRUE(p.checker.take_races().empty());
  // Another context's graph gets lanes of its own.
  const StreamKey elsewhere{2, 0xa};
  p.checker.stream_created(elsewhere, StreamKind::NonBlocking);
  p.launch(elsewhere, graph_of(11, {p.memset_node(kBuffer + 1024)}), 8);
  EXPECT_EQ(p.checker.graph_lanes_made(), 3u);
}

TEST(DeviceGraphNodes, AGraphWritingWhatAKernelOnAnotherStreamReadsWithNoEventRaces) {
  Program p;
  p.launch(p.a, graph_of(1, {p.kernel_node(kOther), p.kernel_node(kBuffer, {0})}), 7);
  p.kernel(p.b, kBuffer, 8, ArgumentAccess::ReadOnly);
  const std::vector<Finding> races = p.checker.take_races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].race->earlier.api, "cuGraphLaunch kernel node");
  EXPECT_EQ(races[0].race->later.api, "cuLaunchKernel");
  EXPECT_EQ(races[0].access_site, 8u);
  EXPECT_NE(races[0].smallest_fix().find("cudaStreamWaitEvent the later work's stream"), std::string::npos)
      << "a graph against a stream's work is fixed as two streams' work is: " << races[0].smallest_fix();
}

TEST(DeviceGraphNodes, AGraphAndAKernelOnAnotherStreamOrderedByAnEventAreClean) {
  Program p;
  p.checker.event_created(0xe);
  p.launch(p.a, graph_of(1, {p.kernel_node(kOther), p.kernel_node(kBuffer, {0})}), 7);
  p.checker.event_recorded(0xe, p.a);
  p.checker.stream_waited_event(p.b, 0xe);
  p.kernel(p.b, kBuffer, 8, ArgumentAccess::ReadOnly);
  EXPECT_TRUE(p.checker.take_races().empty()) << "the event recorded after the launch follows every node";
}

TEST(DeviceGraphNodes, AStreamsWorkBeforeAndAfterALaunchIsOrderedWithEveryNode) {
  Program p;
  p.kernel(p.a, kBuffer, 6, ArgumentAccess::ReadOnly);
  p.launch(p.a, graph_of(1, {p.memset_node(kBuffer), p.kernel_node(kOther)}), 7);
  p.kernel(p.a, kBuffer, 8, ArgumentAccess::ReadOnly);
  EXPECT_TRUE(p.checker.take_races().empty());
}

TEST(DeviceGraphNodes, AGraphRacesWithAnotherStreamsEarlierWorkThatNothingOrders) {
  Program p;
  p.kernel(p.b, kBuffer, 6);
  p.launch(p.a, graph_of(1, {p.kernel_node(kOther), p.kernel_node(kBuffer, {0}, ArgumentAccess::ReadOnly)}), 7);
  EXPECT_EQ(p.checker.take_races().size(), 1u);
}

TEST(DeviceGraphNodes, TheHostSynchronizingTheLaunchStreamKnowsEveryNodeRan) {
  Program p;
  p.launch(p.a, graph_of(1, {p.memset_node(kBuffer), p.memset_node(kOther)}), 7);
  p.checker.stream_synchronized(p.a);
  p.kernel(p.b, kBuffer, 8);
  p.kernel(p.b, kOther, 9);
  EXPECT_TRUE(p.checker.take_races().empty());
}

TEST(DeviceGraphNodes, ASecondLaunchOfTheSameExecutableRunsAfterTheFirstOnAnyStream) {
  Program p;
  // The second launch's first node writes what a node of the first launch on another lane reads.
  const GraphNodes graph = graph_of(
      1, {p.memset_node(kBuffer), p.memset_node(kOther, {0}), p.kernel_node(kBuffer, {0}, ArgumentAccess::ReadOnly)});
  ASSERT_NE(graph.nodes[2].lane, graph.nodes[0].lane);
  p.launch(p.a, graph, 7);
  p.launch(p.b, graph, 8);
  EXPECT_TRUE(p.checker.take_races().empty()) << "CUDA runs the launches of one executable one after another";
  // Another instantiation of the same graph is another executable: nothing orders its launch after the first's.
  p.launch(p.a, graph_of(2, {p.kernel_node(kBuffer, {}, ArgumentAccess::ReadOnly)}), 9);
  EXPECT_EQ(p.checker.take_races().size(), 1u);
}

TEST(DeviceGraphNodes, TheLegacyStreamWaitsForAGraphLaunchedOnABlockingStream) {
  Program p;
  const StreamKey blocking{1, 0xc};
  p.checker.stream_created(blocking, StreamKind::Blocking);
  p.launch(blocking, graph_of(1, {p.memset_node(kBuffer), p.memset_node(kOther)}), 7);
  p.kernel(p.legacy, kBuffer, 8);
  p.kernel(p.legacy, kOther, 9);
  EXPECT_TRUE(p.checker.take_races().empty());
  // A non-blocking stream does not wait.
  p.launch(blocking, graph_of(2, {p.memset_node(kBuffer)}), 10);
  p.kernel(p.b, kBuffer, 11);
  EXPECT_EQ(p.checker.take_races().size(), 1u);
}

TEST(DeviceGraphNodes, EdgesThatNameNoNodeOrMakeACycleAreRefused) {
  std::vector<GraphNode> cycle(2);
  add_edges(cycle, {{0, 1}, {1, 0}});
  EXPECT_FALSE(ordered_graph(cycle));
  std::vector<GraphNode> dangling(1);
  dangling[0].after = {5};
  EXPECT_FALSE(ordered_graph(dangling));
  std::vector<GraphNode> listed(3);
  listed[0].api = "last";
  listed[2].api = "first";
  add_edges(listed, {{2, 1}, {1, 0}});
  const auto ordered = ordered_graph(listed);
  ASSERT_TRUE(ordered);
  EXPECT_EQ((*ordered)[0].api, "first");
  EXPECT_EQ((*ordered)[2].api, "last");
  EXPECT_EQ((*ordered)[2].after, std::vector<std::size_t>{1});
}

}  // namespace
}  // namespace hazardlab::check
