#include "checker/core/graph_nodes.hpp"

#include <utility>

namespace hazardlab::check {

std::optional<std::vector<GraphNode>> ordered_graph(std::vector<GraphNode> nodes) {
  // Kahn's order: a node is placed once every predecessor is.
  const std::size_t n = nodes.size();
  std::vector<std::size_t> waiting(n, 0);
  std::vector<std::vector<std::size_t>> successors(n);
  for (std::size_t i = 0; i < n; ++i)
    for (const std::size_t p : nodes[i].after) {
      if (p >= n) return std::nullopt;
      successors[p].push_back(i);
      ++waiting[i];
    }
  std::vector<std::size_t> order, new_index(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) order.push_back(i);
  for (std::size_t next = 0; next < order.size(); ++next)
    for (const std::size_t s : successors[order[next]])
      if (--waiting[s] == 0) order.push_back(s);
  if (order.size() != n) return std::nullopt;  // a cycle
  for (std::size_t i = 0; i < n; ++i) new_index[order[i]] = i;
  std::vector<GraphNode> ordered;
  ordered.reserve(n);
  for (const std::size_t old : order) {
    GraphNode node = std::move(nodes[old]);
    for (std::size_t& p : node.after) p = new_index[p];
    ordered.push_back(std::move(node));
  }
  return ordered;
}

std::optional<GraphNodes> graph_nodes(std::uint64_t instance, std::vector<GraphNode> nodes) {
  std::optional<std::vector<GraphNode>> ordered = ordered_graph(std::move(nodes));
  if (!ordered) return std::nullopt;
  GraphNodes graph{instance, std::move(*ordered), 0};
  std::vector<std::size_t> latest_on_lane;  // the index of each lane's latest node
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    GraphNode& node = graph.nodes[i];
    node.lane = latest_on_lane.size();
    for (const std::size_t p : node.after)
      if (latest_on_lane[graph.nodes[p].lane] == p) {
        node.lane = graph.nodes[p].lane;
        break;
      }
    if (node.lane == latest_on_lane.size()) latest_on_lane.push_back(i);
    latest_on_lane[node.lane] = i;
  }
  graph.lanes = latest_on_lane.size();
  return graph;
}

void add_edges(std::vector<GraphNode>& nodes, const std::vector<GraphEdge>& edges) {
  for (const GraphEdge& e : edges)
    if (e.to < nodes.size()) nodes[e.to].after.push_back(e.from);
}

}  // namespace hazardlab::check
