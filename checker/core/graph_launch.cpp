// A launch of an executable graph whose nodes are known, in the order engines. CUDA documents that a launch runs
// after its stream's earlier work and after the executable's previous launch, and that work enqueued on the
// stream after it runs after the whole graph; inside, a node waits for its predecessors only. So:
// - a start item on the launch stream, after the executable's previous launch (every lane's latest item: each node
//   of that launch is on one of its lanes, at or before the latest, so their join is that launch, whole);
// - each node an item on its lane (a non-blocking pseudo-stream, made once per instantiation and lane: the legacy
//   stream's implicit synchronization neither waits for it nor makes it wait; a lane is a chain of nodes the edges
//   order, graph_nodes.hpp, given back when its executable is gone, graph_lanes.hpp), after the start and its
//   predecessors; a kernel, memcpy or memset node's ranges judged as any device work's;
// - an end item on the launch stream after every node, which later work, events and synchronizations see.
#include <optional>
#include <vector>

#include "checker/core/checker.hpp"

namespace hazardlab::check {

StreamSlot Checker::graph_lane(std::uint64_t instance, std::size_t lane, StreamKey launch_stream) {
  std::optional<StreamSlot> slot = graph_lanes_.slot(instance, lane, launch_stream.context);
  if (slot) {
    stream_of_slot_.at(*slot) = launch_stream;  // a finding names the stream of the node's latest launch
    return *slot;
  }
  slot = engines_[0].stream_count();
  for (OrderEngine& e : live_engines()) e.add_stream(*slot, StreamKind::NonBlocking, launch_stream.context);
  graph_lanes_.made(instance, lane, launch_stream.context, *slot);
  stream_of_slot_.push_back(launch_stream);
  return *slot;
}

void Checker::graph_instance_gone(std::uint64_t instance) {
  std::lock_guard lock(mutex_);
  graph_lanes_.instance_gone(instance);
}

std::size_t Checker::graph_lanes_made() const {
  std::lock_guard lock(mutex_);
  return graph_lanes_.made_count();
}

StreamKind Checker::named_stream_kind(StreamSlot slot) const {
  if (graph_lanes_.is_lane(slot))
    if (const auto launch = streams_.find(stream_of_slot_.at(slot)); launch != streams_.end())
      return engines_[0].stream_kind(launch->second);
  return engines_[0].stream_kind(slot);
}

WorkStamp Checker::launch_graph(StreamKey stream, const GraphNodes& graph, const SiteOf& site) {
  std::lock_guard lock(mutex_);
  const StreamSlot slot = slot_of(stream);
  std::vector<StreamSlot> lanes;
  lanes.reserve(graph.lanes);
  for (std::size_t lane = 0; lane < graph.lanes; ++lane) lanes.push_back(graph_lane(graph.instance, lane, stream));
  auto join_lanes = [&](const OrderEngine& e, Clock& into) {
    for (const StreamSlot lane : lanes) join(into, e.latest_clock(lane));
  };
  const StreamWorkFacts launch_facts{.stream = engines_[0].stream_kind(slot)};
  const StreamWorkFacts lane_facts{.stream = StreamKind::NonBlocking};
  before_step(launch_facts);
  before_step(lane_facts);

  on_every_engine([&](OrderEngine& e) {
    Clock previous_launch;
    join_lanes(e, previous_launch);
    return e.enqueue(slot, launch_facts, &previous_launch);
  });

  // Each node's clock in each engine, for its successors: a lane's latest item may be a later node of the lane
  // than the predecessor, which a successor of the predecessor alone does not follow.
  std::vector<std::vector<Clock>> clocks(live_engines_, std::vector<Clock>(graph.nodes.size()));
  // One stack for every node of the launch, walked only if a node needs it.
  std::optional<SiteId> named;
  auto launch_site = [&]() -> SiteId { return *(named = named ? named : site.get()); };
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    const StreamSlot lane = lanes.at(node.lane);
    const WorkStamp stamp = on_every_engine([&](OrderEngine& e) {
      std::vector<Clock>& of_node = clocks[static_cast<std::size_t>(&e - engines_.data())];
      Clock after = e.latest_clock(slot);  // the start: the stream's earlier work, the previous launch
      for (const std::size_t p : node.after) join(after, of_node.at(p));
      const WorkStamp item = e.enqueue(lane, lane_facts, &after);
      of_node[i] = e.latest_clock(lane);
      return item;
    });
    if (node.role == GraphNodeRole::DeviceWork && !node.ranges.empty())
      device_accesses(lane, stamp, api_name(node.api), node.kind, node.kernel.empty() ? "" : api_name(node.kernel),
                      node.ranges, RangeSource::PointedElement, SiteOf(launch_site, 0));
  }

  return on_every_engine([&](OrderEngine& e) {
    Clock every_node;
    join_lanes(e, every_node);
    return e.enqueue(slot, launch_facts, &every_node);
  });
}

}  // namespace hazardlab::check
