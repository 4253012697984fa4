// What a launch of an executable graph runs on the device: its nodes, each with the graph's own edges. A node
// runs after the launch stream's earlier work and after its predecessors, and after nothing else; the launch
// stream's later work runs after every node. The checker puts the nodes on lanes of the order engine, chains of
// nodes the edges order (Checker::graph_launched), so that two nodes nothing orders can race, as two streams' work
// can. No CUDA: the
// injected library reads the nodes from the driver at instantiation (checker/inject/graph_nodes.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checker/core/device_conflicts.hpp"

namespace hazardlab::check {

// What a node does, as far as the device's half of a race goes.
enum class GraphNodeRole {
  DeviceWork,  // a kernel, memcpy or memset node: it touches `ranges`
  OrderOnly,   // an empty, host, memory allocation or free node: it orders by its edges and touches nothing followed
};

struct GraphNode {
  GraphNodeRole role = GraphNodeRole::OrderOnly;
  DeviceWorkKind kind = DeviceWorkKind::Kernel;
  std::string api;                  // how a finding names the node's work ("cuGraphLaunch kernel node")
  std::string kernel;               // a kernel node's kernel
  std::vector<DeviceRange> ranges;  // a copy's or memset's exactly; a kernel's by the rule (kernel_ranges)
  std::vector<std::size_t> after;   // its predecessors, as indices into the graph's nodes
  std::size_t lane = 0;             // its lane among the graph's (graph_nodes below)
};

// An executable graph's nodes, each after its predecessors in the list, on `lanes` lanes.
struct GraphNodes {
  std::uint64_t instance = 0;  // one per instantiation: lanes are never shared by two executables
  std::vector<GraphNode> nodes;
  std::size_t lanes = 0;
};

// The nodes ordered (ordered_graph) and given lanes: a node shares the lane of a predecessor that is still the
// latest node on it, else takes a new one. Every lane is then a chain of nodes the edges order one after another,
// so its own order says nothing false, and a graph captured from one stream is one lane, however many nodes it
// has (each lane is a component of every clock the order engine keeps). nullopt where ordered_graph refuses.
std::optional<GraphNodes> graph_nodes(std::uint64_t instance, std::vector<GraphNode> nodes);

// The nodes in an order where each comes after its predecessors, the edges renumbered; nullopt when an edge names
// a node that is not there or the edges make a cycle (the driver refuses both: the graph is then not followed).
std::optional<std::vector<GraphNode>> ordered_graph(std::vector<GraphNode> nodes);

// An edge of the graph, from a node to one that runs after it, by index into the nodes.
struct GraphEdge {
  std::size_t from = 0, to = 0;
};
// Each edge as the `to` node's predecessor.
void add_edges(std::vector<GraphNode>& nodes, const std::vector<GraphEdge>& edges);

}  // namespace hazardlab::check
