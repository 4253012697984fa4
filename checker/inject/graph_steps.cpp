#include "checker/inject/graph_steps.hpp"

#include <utility>

#include "checker/inject/core_steps.hpp"
#include "checker/inject/device_ranges.hpp"

namespace hazardlab::check::inject {

namespace {

// The nodes whose order with the program's other work the checker cannot know.
const char* unmodeled(CUgraphNodeType type) {
  switch (type) {
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return "an event wait node";
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return "an event record node";
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL: return "an external semaphore signal node";
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT: return "an external semaphore wait node";
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP: return "a batch memory operation node";
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: return "a conditional node";
    default: return "a node of a type the checker does not know";
  }
}

GraphNode device_work(DeviceWorkKind kind, const char* api, std::string kernel, std::vector<DeviceRange> ranges) {
  return GraphNode{GraphNodeRole::DeviceWork, kind, api, std::move(kernel), std::move(ranges), {}};
}
GraphNode order_only(const char* api) {
  return GraphNode{GraphNodeRole::OrderOnly, DeviceWorkKind::Kernel, api, {}, {}, {}};
}

struct Flattening {
  std::vector<GraphNode> out;
  FollowedGraph& result;

  // Appends the graph's nodes; each root after `entry` (when there is one). For each node, the index a predecessor
  // edge points to and the one a successor edge comes from (a child graph: its entry and its exit).
  bool append(const DriverGraph& graph, std::optional<std::size_t> entry) {
    std::vector<std::pair<std::size_t, std::size_t>> ends(graph.nodes.size());
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)
      if (!append(graph.nodes[i], ends[i])) return false;
    std::vector<bool> has_predecessor(graph.nodes.size(), false);
    for (const DriverEdge& e : graph.edges) {
      if (!e.full) return refuse("a programmatic edge");
      if (e.from >= ends.size() || e.to >= ends.size()) return refuse("an edge the driver listed to no node");
      out[ends[e.to].first].after.push_back(ends[e.from].second);
      has_predecessor[e.to] = true;
    }
    if (entry)
      for (std::size_t i = 0; i < graph.nodes.size(); ++i)
        if (!has_predecessor[i]) out[ends[i].first].after.push_back(*entry);
    return true;
  }

  bool append(const DriverNode& node, std::pair<std::size_t, std::size_t>& ends) {
    ends.first = ends.second = out.size();
    switch (node.type) {
      case CU_GRAPH_NODE_TYPE_KERNEL:
        if (!node.kernel.layout_known) result.kernels_without_layout.emplace_back(node.kernel.kernel);
        out.push_back(device_work(DeviceWorkKind::Kernel, "cuGraphLaunch kernel node", std::string(node.kernel.kernel),
                                  node.kernel.ranges));
        return true;
      case CU_GRAPH_NODE_TYPE_MEMCPY:
        out.push_back(
            device_work(DeviceWorkKind::Copy, "cuGraphLaunch memcpy node", {}, copy_device_ranges(node.copy)));
        return true;
      case CU_GRAPH_NODE_TYPE_MEMSET:
        out.push_back(
            device_work(DeviceWorkKind::Memset, "cuGraphLaunch memset node", {}, memset_node_ranges(node.memset)));
        return true;
      case CU_GRAPH_NODE_TYPE_HOST: out.push_back(order_only("cuGraphLaunch host node")); return true;
      case CU_GRAPH_NODE_TYPE_EMPTY: out.push_back(order_only("cuGraphLaunch empty node")); return true;
      case CU_GRAPH_NODE_TYPE_MEM_ALLOC: out.push_back(order_only("cuGraphLaunch memory allocation node")); return true;
      case CU_GRAPH_NODE_TYPE_MEM_FREE: out.push_back(order_only("cuGraphLaunch memory free node")); return true;
      case CU_GRAPH_NODE_TYPE_GRAPH: {
        if (node.child.size() != 1) return refuse("a child graph node whose graph the driver did not give");
        out.push_back(order_only("cuGraphLaunch child graph node"));
        const std::size_t entry = ends.first, first_child = out.size();
        if (!append(node.child[0], entry)) return false;
        GraphNode exit = order_only("cuGraphLaunch child graph node");
        for (std::size_t c = first_child; c < out.size(); ++c) exit.after.push_back(c);
        if (first_child == out.size()) exit.after.push_back(entry);
        ends.second = out.size();
        out.push_back(std::move(exit));
        return true;
      }
      default: return refuse(unmodeled(node.type));
    }
  }

  bool refuse(const char* why) {
    result.not_followed_because = why;
    return false;
  }
};

}  // namespace

FollowedGraph followed_graph(const DriverGraph& graph) {
  FollowedGraph result;
  Flattening flattening{{}, result};
  if (flattening.append(graph, std::nullopt)) result.nodes = std::move(flattening.out);
  return result;
}

GraphEvents graph_events(const DriverGraph& graph) {
  GraphEvents events;
  for (const DriverNode& node : graph.nodes) {
    if (node.type == CU_GRAPH_NODE_TYPE_EVENT_RECORD) events.recorded.push_back(node.event);
    if (node.type == CU_GRAPH_NODE_TYPE_WAIT_EVENT) events.waited.push_back(node.event);
    for (const DriverGraph& child : node.child) {
      GraphEvents inner = graph_events(child);
      events.recorded.insert(events.recorded.end(), inner.recorded.begin(), inner.recorded.end());
      events.waited.insert(events.waited.end(), inner.waited.begin(), inner.waited.end());
    }
  }
  return events;
}

void unfollowed_launch(Checker& checker, StreamKey stream, const GraphEvents& events,
                       const std::function<void()>& launch) {
  for (const std::uint64_t event : events.waited) checker.stream_waited_event(stream, event);
  launch();
  for (const std::uint64_t event : events.recorded) checker.event_recorded(event, stream);
}

std::vector<DeviceRange> memset_node_ranges(const CUDA_MEMSET_NODE_PARAMS& m) {
  std::vector<DeviceRange> ranges;
  const std::size_t row = m.width * m.elementSize;
  if (m.height <= 1) {
    add_range(m.dst, row, DeviceAccessKind::Write, ranges);
    return ranges;
  }
  add_copy_end_ranges(CopyEndShape{CU_MEMORYTYPE_DEVICE, m.dst, 0, 0, 0, m.pitch, m.height, row, m.height, 1},
                      DeviceAccessKind::Write, ranges);
  return ranges;
}

}  // namespace hazardlab::check::inject
