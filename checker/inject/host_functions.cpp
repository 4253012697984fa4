// The program's host functions (cuLaunchHostFunc, cuStreamAddCallback), decoded into HostFunctionQueued at the
// call's entry and its exit: the checker queues a marker just ahead of each and one just behind it, so that it
// knows when the function starts (everything before it on its stream has run, and the host may rely on that)
// and when it has returned. The markers run on the driver's thread: they catch everything (ground rule 2).
#include <exception>
#include <string>

#include "checker/inject/call.hpp"
#include "checker/inject/events.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/reporting.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

struct HostFunctionMarker {
  WorkStamp item;
};

void CUDA_CB host_function_starts(void* data) {
  auto* start = static_cast<HostFunctionMarker*>(data);
  FaultHandler::mark_host_function_thread();
  try {
    session().checker.host_function_started(start->item);
  } catch (const std::exception& e) {
    stop_watching(std::string("a host function's start: ") + e.what());
  }
  delete start;
}

void CUDA_CB host_function_ends(void* data) {
  auto* end = static_cast<HostFunctionMarker*>(data);
  try {
    session().checker.host_function_returned(end->item);
  } catch (const std::exception& e) {
    stop_watching(std::string("a host function's return: ") + e.what());
  }
  delete end;
}

// Queued ahead of the launch of a graph that has host nodes: it runs on the thread the driver runs host
// functions on, which then runs the graph's host nodes, so that their accesses are judged as host functions'.
void CUDA_CB host_function_thread_marker(void*) { FaultHandler::mark_host_function_thread(); }

// At the entry: a start marker ahead of the program's function. In a stream capture the function becomes a host
// node of the graph being built, run at each launch of it: no marker goes into the program's graph (it would
// change the graph, and run once per launch). At the exit: an end marker behind it.
void take(const HostFunctionQueued& queued) {
  Session& in = session();
  ThreadState& thread = this_thread();
  if (queued.side == QueueSide::Entry) {
    if (const std::optional<CUgraph> graph = capture_graph(queued.handle)) {
      in.core.handles.graph_host_nodes(reinterpret_cast<std::uint64_t>(*graph));
      return;
    }
    auto* start = new HostFunctionMarker{in.checker.host_function_enqueued(queued.stream)};
    thread.host_function_being_queued = start->item;
    const OurCall ours;
    if (cuLaunchHostFunc(queued.handle, host_function_starts, start) != CUDA_SUCCESS) delete start;
    return;
  }
  if (!thread.host_function_being_queued) return;
  auto* end = new HostFunctionMarker{*thread.host_function_being_queued};
  thread.host_function_being_queued.reset();
  const OurCall ours;
  if (cuLaunchHostFunc(queued.handle, host_function_ends, end) != CUDA_SUCCESS) delete end;
}

}  // namespace

void queue_host_function_thread_marker(CUstream handle) {
  const OurCall ours;
  cuLaunchHostFunc(handle, host_function_thread_marker, nullptr);
}

void launch_host_func_entering(const Call& c) {
  const CUstream handle = PARAMS(cuLaunchHostFunc).hStream;
  take(HostFunctionQueued{QueueSide::Entry, handle, c.stream(handle)});
}
void launch_host_func_queued(const Call& c) {
  take(HostFunctionQueued{.side = QueueSide::Exit, .handle = PARAMS(cuLaunchHostFunc).hStream});
}
void stream_callback_entering(const Call& c) {
  const CUstream handle = PARAMS(cuStreamAddCallback).hStream;
  take(HostFunctionQueued{QueueSide::Entry, handle, c.stream(handle)});
}
void stream_callback_queued(const Call& c) {
  take(HostFunctionQueued{.side = QueueSide::Exit, .handle = PARAMS(cuStreamAddCallback).hStream});
}

}  // namespace hazardlab::check::inject
