// An instantiated graph's nodes and edges, read with driver queries when it is instantiated (the executable runs
// what its graph held then), kept in the core's handles per executable; and what makes them stale (an update of
// the executable, a node's parameters set or a node disabled on it, its destruction). A stream capture's graph
// (torch.cuda.graph among them) reaches the same instantiation.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/inject/graph_steps.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

constexpr int kDeepestChildGraph = 16;

std::optional<DriverGraph> read_graph(CUgraph graph, int depth);

bool read_kernel(CUgraphNode node, DriverNode& out) {
  CUDA_KERNEL_NODE_PARAMS p{};
  if (cuGraphKernelNodeGetParams(node, &p) != CUDA_SUCCESS) return false;
  // The node names a function, or a library's kernel when the function is null.
  const char* symbol = nullptr;
  const CUresult named = p.func != nullptr ? cuFuncGetName(&symbol, p.func) : cuKernelGetName(&symbol, p.kern);
  if (named != CUDA_SUCCESS) symbol = nullptr;  // the kernel's signature is not known: every pointer may be written
  const CUfunction function = p.func != nullptr ? p.func : reinterpret_cast<CUfunction>(p.kern);
  Session& in = session();
  out.kernel = in.layouts.launch_accesses(function, symbol, p.kernelParams, p.extra, in.checker.allocations(),
                                          this_thread().launch_arguments);
  return true;
}

bool read_event(CUresult got, CUevent event, DriverNode& out) {
  out.event = reinterpret_cast<std::uint64_t>(event);  // the key synchronization.cpp gives an event
  return got == CUDA_SUCCESS;
}

bool read_node(CUgraphNode node, DriverNode& out, int depth) {
  if (cuGraphNodeGetType(node, &out.type) != CUDA_SUCCESS) return false;
  CUevent event = nullptr;
  switch (out.type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
      return read_kernel(node, out);
    case CU_GRAPH_NODE_TYPE_MEMCPY:
      return cuGraphMemcpyNodeGetParams(node, &out.copy) == CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_MEMSET:
      return cuGraphMemsetNodeGetParams(node, &out.memset) == CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_GRAPH: {
      CUgraph child = nullptr;
      if (depth >= kDeepestChildGraph || cuGraphChildGraphNodeGetGraph(node, &child) != CUDA_SUCCESS) return false;
      std::optional<DriverGraph> graph = read_graph(child, depth + 1);
      if (graph) out.child.push_back(std::move(*graph));
      return graph.has_value();
    }
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      return read_event(cuGraphEventRecordNodeGetEvent(node, &event), event, out);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
      return read_event(cuGraphEventWaitNodeGetEvent(node, &event), event, out);
    default:
      return true;  // the type is all the checker uses of it
  }
}

std::optional<DriverGraph> read_graph(CUgraph graph, int depth) {
  std::size_t count = 0;
  if (cuGraphGetNodes(graph, nullptr, &count) != CUDA_SUCCESS) return std::nullopt;
  std::vector<CUgraphNode> nodes(count);
  if (count > 0 && cuGraphGetNodes(graph, nodes.data(), &count) != CUDA_SUCCESS) return std::nullopt;
  nodes.resize(count);
  DriverGraph out;
  out.nodes.resize(nodes.size());
  std::map<CUgraphNode, std::size_t> index;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    index[nodes[i]] = i;
    if (!read_node(nodes[i], out.nodes[i], depth)) return std::nullopt;
  }
  std::size_t edges = 0;
  // Counted without their data, edges that carry some may be refused as a lossy query: the count still stands.
  const CUresult counted = cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges);
  if (counted != CUDA_SUCCESS && counted != CUDA_ERROR_LOSSY_QUERY) return std::nullopt;
  std::vector<CUgraphNode> from(edges), to(edges);
  std::vector<CUgraphEdgeData> data(edges);
  if (edges > 0 && cuGraphGetEdges(graph, from.data(), to.data(), data.data(), &edges) != CUDA_SUCCESS)
    return std::nullopt;
  for (std::size_t e = 0; e < edges; ++e) {
    const auto f = index.find(from[e]), t = index.find(to[e]);
    const bool full =
        data[e].type == CU_GRAPH_DEPENDENCY_TYPE_DEFAULT && data[e].from_port == 0 && data[e].to_port == 0;
    out.edges.push_back(
        DriverEdge{f != index.end() ? f->second : nodes.size(), t != index.end() ? t->second : nodes.size(), full});
  }
  return out;
}

}  // namespace

void read_graph_nodes(CUgraphExec executable, CUgraph graph) {
  Session& in = session();
  std::optional<DriverGraph> driver;
  {
    const OurCall ours;
    driver = read_graph(graph, 0);
  }
  FollowedGraph followed = driver ? followed_graph(*driver) : FollowedGraph{};
  in.core.handles.executable_events(reinterpret_cast<std::uint64_t>(executable),
                                    driver && !followed.nodes ? graph_events(*driver) : GraphEvents{});
  if (!driver) followed.not_followed_because = "a node or an edge the driver did not describe";
  for (const std::string& kernel : followed.kernels_without_layout)
    if (in.launches_without_layout++ == 0)
      in.writer.note("the driver could not list the parameters of kernel " + kernel +
                     ": what its launches touch on the device was not watched");
  std::optional<std::uint64_t> gone;
  const bool followed_nodes =
      in.core.handles.executable_nodes(reinterpret_cast<std::uint64_t>(executable), std::move(followed.nodes), &gone);
  if (gone) in.checker.graph_instance_gone(*gone);
  if (!followed_nodes && in.graphs_not_followed++ == 0)
    in.writer.note("a graph was instantiated with " +
                   (followed.not_followed_because.empty() ? std::string("edges that make no order")
                                                          : followed.not_followed_because) +
                   ": what its nodes touch on the device was not watched (each launch of it is one item of its "
                   "stream)");
}

void graph_executable_changed(const Call& c) {
  // Each of these calls names the executable first.
  const CUgraphExec executable = *static_cast<const CUgraphExec*>(c.d->functionParams);
  Session& in = session();
  if (const std::optional<std::uint64_t> gone =
          in.core.handles.executable_changed(reinterpret_cast<std::uint64_t>(executable)))
    in.checker.graph_instance_gone(*gone);
  if (!c.is(CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy) && in.graphs_changed++ == 0)
    in.writer.note("an executable graph was changed after its instantiation (" + std::string(c.name()) +
                   "): what its later launches touch on the device was not watched");
}

}  // namespace hazardlab::check::inject
