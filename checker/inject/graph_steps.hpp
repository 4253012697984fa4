// An instantiated graph as the driver describes it (its nodes' types and parameters, its edges, each child graph's
// own; read with driver queries by graph_nodes.cpp), and what the core follows of it: its kernel, memcpy and
// memset nodes as items of device work with the graph's edges (checker/core/graph_nodes.hpp). No driver call, so
// checker/tests/test_driver_replay.cpp replays it on the CPU.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checker/core/checker.hpp"
#include "checker/core/graph_nodes.hpp"
#include "checker/core/handles.hpp"
#include "checker/inject/kernel_layouts.hpp"

namespace hazardlab::check::inject {

struct DriverGraph;

struct DriverNode {
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
  LaunchAccesses kernel;                  // a kernel node: what its arguments touch, by its parameter layout
  CUDA_MEMCPY3D copy{};                   // a memcpy node
  CUDA_MEMSET_NODE_PARAMS memset{};       // a memset node
  std::vector<DriverGraph> child = {};    // a child graph node: its graph (one)
  std::uint64_t event = 0;                // an event record or wait node: its event's key
};

// An edge, by index into the graph's nodes. `full`: an ordinary dependency on the upstream node's completion (the
// default type and ports); a programmatic one lets the downstream kernel start before it.
struct DriverEdge {
  std::size_t from = 0, to = 0;
  bool full = true;
};

struct DriverGraph {
  std::vector<DriverNode> nodes;
  std::vector<DriverEdge> edges;
};

// What the core follows: nullopt where the graph has a node or an edge the checker does not model (an event record
// or wait, an external semaphore, a batch of memory operations, a conditional, a programmatic edge), whose order
// with the program's other work it cannot know; `not_followed_because` then names the first. A child graph's
// nodes are followed as nodes of the graph, between an entry and an exit that stand for the child node's edges.
// Host, empty and memory allocation or free nodes order by their edges and touch nothing followed.
struct FollowedGraph {
  std::optional<std::vector<GraphNode>> nodes;
  std::string not_followed_because;
  std::vector<std::string> kernels_without_layout;  // kernel nodes whose parameters the driver could not list
};
FollowedGraph followed_graph(const DriverGraph& graph);

// The events the graph's event record and wait nodes name, child graphs' included (GraphEvents).
GraphEvents graph_events(const DriverGraph& graph);
// A launch of a graph whose nodes are not followed: the launch stream waits for the events its nodes wait for,
// then `launch` enqueues the launch's own items, then the events its nodes record are recorded on the stream.
void unfollowed_launch(Checker& checker, StreamKey stream, const GraphEvents& events,
                       const std::function<void()>& launch);

// The bytes a memset node writes: `height` rows of `width` elements, `pitch` apart.
std::vector<DeviceRange> memset_node_ranges(const CUDA_MEMSET_NODE_PARAMS& memset);

}  // namespace hazardlab::check::inject
