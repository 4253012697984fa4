// Graphs: stream captures begun and ended, the nodes that touch host memory (memcpy nodes, host nodes), clones
// and instantiations (whose nodes graph_nodes.cpp reads), kept in the session's registries; and a graph's launch,
// decoded into GraphLaunched, which runs its nodes as device work with the graph's edges and issues the copies
// that touch host memory on the launch's stream.
#include <string>
#include <vector>

#include "checker/inject/call.hpp"
#include "checker/inject/core_steps.hpp"
#include "checker/inject/events.hpp"
#include "checker/inject/graph_steps.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/reporting.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

std::uint64_t key_of(CUgraph graph) { return reinterpret_cast<std::uint64_t>(graph); }
std::uint64_t key_of(CUgraphExec executable) { return reinterpret_cast<std::uint64_t>(executable); }

void host_node_added(CUgraph graph) { session().core.handles.graph_host_nodes(key_of(graph)); }

void memcpy_node_added(CUgraph graph, const CUDA_MEMCPY3D& m, const char* api) {
  const CopyEnd src = end_of(m, CopySide::Source), dst = end_of(m, CopySide::Destination);
  if (src.kind != MemoryKind::PinnedHost && dst.kind != MemoryKind::PinnedHost) return;
  session().core.handles.graph_copy(key_of(graph), GraphCopy{api, src, dst, copy_bytes(m)});
}

// A graph's memcpy nodes read and write their host buffers when the launch runs, by reference.
void issue_host_copies(const GraphLaunched& launch, const GraphLaunchWork& work) {
  for (const GraphCopy& g : work.copies) {
    const std::string api = "cuGraphLaunch of " + g.api;
    take(CopyEnqueued{api, launch.handle, launch.stream, g.src, g.dst, g.bytes, {}, CopyOrigin::GraphLaunch,
                      work.host_nodes});
  }
}

void take(const GraphLaunched& launch) {
  Session& in = session();
  const GraphLaunchWork work = in.core.handles.launch_of(key_of(launch.exec));
  // Launched into a capture, it is a node of the graph being built, and runs only when that graph is launched.
  const bool captured = capturing(launch.handle);
  if (work.nodes != nullptr && !captured) {
    // Its nodes on the device, with the graph's edges; then the copies that touch host memory.
    in.checker.graph_launched(launch.stream, *work.nodes, [] { return capture_site(); });
    write_races();
    issue_host_copies(launch, work);
    return;
  }
  const GraphEvents events = captured ? GraphEvents{} : work.events;
  unfollowed_launch(in.checker, launch.stream, events, [&] {
    issue_host_copies(launch, work);
    if (work.copies.empty()) in.checker.work_enqueued(launch.stream);
  });
}

}  // namespace

void capture_begun(const Call&) { ++session().captures_open; }
void capture_ended(const Call&) { --session().captures_open; }

void graph_memcpy_node(const Call& c) {
  memcpy_node_added(PARAMS(cuGraphAddMemcpyNode).hGraph, *PARAMS(cuGraphAddMemcpyNode).copyParams,
                    "cudaGraphAddMemcpyNode");
}
void graph_host_node(const Call& c) { host_node_added(PARAMS(cuGraphAddHostNode).hGraph); }
void graph_node(const Call& c) {
  // cuGraphAddNode and its _v2: the same graph and node parameters.
  const CUgraph graph = PARAMS(cuGraphAddNode).hGraph;
  const CUgraphNodeParams& node = c.is(CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode) ? *PARAMS(cuGraphAddNode).nodeParams
                                                                              : *PARAMS(cuGraphAddNode_v2).nodeParams;
  if (node.type == CU_GRAPH_NODE_TYPE_HOST) host_node_added(graph);
  if (node.type == CU_GRAPH_NODE_TYPE_MEMCPY) memcpy_node_added(graph, node.memcpy.copyParams, "cuGraphAddNode");
}
void graph_cloned(const Call& c) {
  session().core.handles.graph_cloned(key_of(PARAMS(cuGraphClone).originalGraph), key_of(*PARAMS(cuGraphClone).phGraphClone));
}
void graph_instantiated(const Call& c) {
  const bool with_flags = c.is(CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags);
  const CUgraphExec executable =
      with_flags ? *PARAMS(cuGraphInstantiateWithFlags).phGraphExec : *PARAMS(cuGraphInstantiateWithParams).phGraphExec;
  const CUgraph graph =
      with_flags ? PARAMS(cuGraphInstantiateWithFlags).hGraph : PARAMS(cuGraphInstantiateWithParams).hGraph;
  session().core.handles.instantiated(key_of(executable), key_of(graph));
  // Off (the default until check/graphs/* has run on a GPU): each launch stays one item of its stream.
  if (session().core.settings.graph_nodes) read_graph_nodes(executable, graph);
}

// At the launch's entry: a graph with host nodes gets the marker of the host-function thread ahead of it.
void graph_launch_entering(const Call& c) {
  const CUgraphExec exec = PARAMS(cuGraphLaunch).hGraph;
  const CUstream handle = PARAMS(cuGraphLaunch).hStream;
  if (session().core.handles.host_nodes_of(key_of(exec)) == GraphHostNodes::None) return;
  if (capture_graph(handle)) return;  // launched into a capture: it becomes a node, the marker would too
  queue_host_function_thread_marker(handle);
}
void graph_launched(const Call& c) {
  const CUstream handle = PARAMS(cuGraphLaunch).hStream;
  take(GraphLaunched{PARAMS(cuGraphLaunch).hGraph, handle, c.stream(handle)});
}

}  // namespace hazardlab::check::inject
