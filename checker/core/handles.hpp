// The program's handles as the checker keeps them: each stream it named with its key, and what each of its graphs
// does at a launch that the checker must see (the copies that touch host memory, whether it has host nodes, and
// the nodes each executable runs on the device, with their edges). No CUDA: a handle is its value. The injected
// library fills it from the driver's calls; it locks itself, and the lock is held across what `make` does for a
// stream first seen (a driver query, the Checker told), so that a stream is made once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checker/core/graph_nodes.hpp"
#include "checker/core/work_items.hpp"

namespace hazardlab::check {

// A copy recorded into a graph (an explicit memcpy node, or a copy captured from a stream) that touches host
// memory: issued on the launch's stream each time the graph is launched.
struct GraphCopy {
  std::string api;
  CopyEnd src, dst;
  std::size_t bytes = 0;
};

// The events the event record and wait nodes of a graph the checker does not follow name. Its launch is taken to
// wait for the one before it and to record the other after it, whole: a stronger order than the nodes' own, so that
// a race may be missed but work the graph orders is never called racing.
struct GraphEvents {
  std::vector<std::uint64_t> recorded, waited;
};

// What a launch of an executable graph issues.
struct GraphLaunchWork {
  std::vector<GraphCopy> copies;
  GraphHostNodes host_nodes = GraphHostNodes::None;
  // Its nodes as items of device work (graph_nodes.hpp); null where they were not read or cannot be followed: the
  // launch is then one item of its stream.
  std::shared_ptr<const GraphNodes> nodes;
  GraphEvents events;
};

class Handles {
 public:
  // The key of the stream `handle`; the first time, `make()` gives it (and tells the Checker).
  StreamKey stream(std::uint64_t handle, const std::function<StreamKey()>& make);
  void stream_created(std::uint64_t handle, StreamKey key);
  void stream_destroyed(std::uint64_t handle);

  void graph_copy(std::uint64_t graph, GraphCopy copy);
  void graph_host_nodes(std::uint64_t graph);
  // A clone launches the same copies and host nodes as its original.
  void graph_cloned(std::uint64_t original, std::uint64_t clone);
  void instantiated(std::uint64_t executable, std::uint64_t graph);
  // The nodes an instantiation read (nullopt: not read, or a node the checker does not follow), each instantiation
  // an instance of its own. False where the edges are refused (ordered_graph): the nodes are then not followed.
  // A re-instantiation into a handle still followed gives back the old instance (`gone`).
  bool executable_nodes(std::uint64_t executable, std::optional<std::vector<GraphNode>> nodes,
                        std::optional<std::uint64_t>* gone = nullptr);
  // What the executable runs is no longer what was read (an update, a node's parameters set or a node disabled on
  // it), or it was destroyed: its launches are one item of their stream from now on. The instance no longer
  // followed, if one was (its lanes can be given back: Checker::graph_instance_gone).
  std::optional<std::uint64_t> executable_changed(std::uint64_t executable);
  void executable_events(std::uint64_t executable, GraphEvents events);
  [[nodiscard]] GraphLaunchWork launch_of(std::uint64_t executable) const;
  [[nodiscard]] GraphHostNodes host_nodes_of(std::uint64_t executable) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::uint64_t, StreamKey> streams_;
  std::map<std::uint64_t, std::vector<GraphCopy>> graph_copies_;
  std::set<std::uint64_t> graphs_with_host_nodes_;  // explicit host nodes, or host functions captured from a stream
  std::map<std::uint64_t, std::uint64_t> executables_;  // executable graph -> the graph it was made from
  std::map<std::uint64_t, std::shared_ptr<const GraphNodes>> executable_nodes_;
  std::map<std::uint64_t, GraphEvents> executable_events_;
  std::uint64_t instances_ = 0;
};

}  // namespace hazardlab::check
