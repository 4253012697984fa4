#include "checker/core/handles.hpp"

#include <utility>

namespace hazardlab::check {

StreamKey Handles::stream(std::uint64_t handle, const std::function<StreamKey()>& make) {
  std::lock_guard lock(mutex_);
  if (auto it = streams_.find(handle); it != streams_.end()) return it->second;
  const StreamKey key = make();
  streams_[handle] = key;
  return key;
}

void Handles::stream_created(std::uint64_t handle, StreamKey key) {
  std::lock_guard lock(mutex_);
  streams_[handle] = key;
}

void Handles::stream_destroyed(std::uint64_t handle) {
  std::lock_guard lock(mutex_);
  streams_.erase(handle);
}

void Handles::graph_copy(std::uint64_t graph, GraphCopy copy) {
  std::lock_guard lock(mutex_);
  graph_copies_[graph].push_back(std::move(copy));
}

void Handles::graph_host_nodes(std::uint64_t graph) {
  std::lock_guard lock(mutex_);
  graphs_with_host_nodes_.insert(graph);
}

void Handles::graph_cloned(std::uint64_t original, std::uint64_t clone) {
  std::lock_guard lock(mutex_);
  if (auto g = graph_copies_.find(original); g != graph_copies_.end()) graph_copies_[clone] = g->second;
  if (graphs_with_host_nodes_.count(original)) graphs_with_host_nodes_.insert(clone);
}

void Handles::instantiated(std::uint64_t executable, std::uint64_t graph) {
  std::lock_guard lock(mutex_);
  executables_[executable] = graph;
}

bool Handles::executable_nodes(std::uint64_t executable, std::optional<std::vector<GraphNode>> nodes,
                               std::optional<std::uint64_t>* gone) {
  std::lock_guard lock(mutex_);
  if (auto old = executable_nodes_.find(executable); old != executable_nodes_.end()) {
    if (gone != nullptr) *gone = old->second->instance;
    executable_nodes_.erase(old);
  }
  std::optional<GraphNodes> graph = nodes ? graph_nodes(instances_ + 1, std::move(*nodes)) : std::nullopt;
  if (!graph) return false;
  ++instances_;
  executable_nodes_[executable] = std::make_shared<const GraphNodes>(std::move(*graph));
  return true;
}

std::optional<std::uint64_t> Handles::executable_changed(std::uint64_t executable) {
  std::lock_guard lock(mutex_);
  const auto it = executable_nodes_.find(executable);
  if (it == executable_nodes_.end()) return std::nullopt;
  const std::uint64_t instance = it->second->instance;
  executable_nodes_.erase(it);
  return instance;
}

void Handles::executable_events(std::uint64_t executable, GraphEvents events) {
  std::lock_guard lock(mutex_);
  if (events.recorded.empty() && events.waited.empty())
    executable_events_.erase(executable);
  else
    executable_events_[executable] = std::move(events);
}

GraphHostNodes Handles::host_nodes_of(std::uint64_t executable) const {
  std::lock_guard lock(mutex_);
  const auto e = executables_.find(executable);
  return e != executables_.end() && graphs_with_host_nodes_.count(e->second) ? GraphHostNodes::Present
                                                                              : GraphHostNodes::None;
}

GraphLaunchWork Handles::launch_of(std::uint64_t executable) const {
  std::lock_guard lock(mutex_);
  GraphLaunchWork work;
  if (auto e = executables_.find(executable); e != executables_.end()) {
    if (auto g = graph_copies_.find(e->second); g != graph_copies_.end()) work.copies = g->second;
    if (graphs_with_host_nodes_.count(e->second)) work.host_nodes = GraphHostNodes::Present;
  }
  if (auto n = executable_nodes_.find(executable); n != executable_nodes_.end()) work.nodes = n->second;
  if (auto v = executable_events_.find(executable); v != executable_events_.end()) work.events = v->second;
  return work;
}

}  // namespace hazardlab::check
