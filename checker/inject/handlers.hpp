// Each family's handlers of the driver calls it decodes, as the dispatch table (dispatch.cpp) names them: at the
// call's entry (frees, while the memory exists; host functions, to queue the start marker ahead) or at its exit,
// when it succeeded (what it made or enqueued now exists).
#pragma once

#include <cuda.h>

#include <cstddef>

#include "checker/inject/call.hpp"
#include "checker/inject/kernel_layouts.hpp"

namespace hazardlab::check::inject {

// copies.cpp
void copy_h2d_async(const Call& c);
void copy_d2h_async(const Call& c);
void copy_async(const Call& c);
void copy_2d_async(const Call& c);
void copy_3d_async(const Call& c);
void copy_d2d_async(const Call& c);
void copy_sync_h2d(const Call& c);
void copy_sync_d2h(const Call& c);
void copy_sync_d2d(const Call& c);
void copy_sync(const Call& c);
void copy_sync_2d(const Call& c);
void copy_sync_3d(const Call& c);
void batch_copy(const Call& c);

// memsets.cpp
void memset_async(const Call& c);
void memset_2d_async(const Call& c);

// launches.cpp
void kernel_launched(const Call& c);

// module_images.cpp (`--ptx-footprints`): the PTX of a module loaded through the driver.
void module_loaded(const Call& c);

// managed_memory.cpp (`--managed-memory`): a launch's holds on the managed allocations its arguments point into;
// a prefetch and an attach, queued on their stream.
void hold_managed_arguments(CUstream handle, StreamKey stream, const LaunchAccesses& accesses);
void managed_prefetched(const Call& c);
void managed_attached(const Call& c);

// allocations.cpp
void host_alloc(const Call& c);
void alloc_host(const Call& c);
void host_register(const Call& c);
void pinned_released(const Call& c);
void device_alloc(const Call& c);
void device_alloc_async(const Call& c);
void device_free(const Call& c);
void device_unmap(const Call& c);
void device_free_async(const Call& c);

// synchronization.cpp
void stream_created(const Call& c);
void stream_destroyed(const Call& c);
void event_created(const Call& c);
void event_recorded(const Call& c);
void stream_waited_event(const Call& c);
void event_synchronized(const Call& c);
void stream_synchronized(const Call& c);
void context_synchronized(const Call& c);

// graphs.cpp
void capture_begun(const Call& c);
void capture_ended(const Call& c);
void graph_memcpy_node(const Call& c);
void graph_host_node(const Call& c);
void graph_node(const Call& c);
void graph_cloned(const Call& c);
void graph_instantiated(const Call& c);
void graph_launch_entering(const Call& c);
void graph_launched(const Call& c);

// graph_nodes.cpp: at an instantiation, the graph's nodes and edges read from the driver and kept per executable;
// an executable changed after it (updated, a node's parameters set, a node disabled) or destroyed.
void read_graph_nodes(CUgraphExec executable, CUgraph graph);
void graph_executable_changed(const Call& c);

// host_functions.cpp
void launch_host_func_entering(const Call& c);
void launch_host_func_queued(const Call& c);
void stream_callback_entering(const Call& c);
void stream_callback_queued(const Call& c);
// Queues the marker that tells the checker the driver's host-function thread runs next (a graph's host nodes).
void queue_host_function_thread_marker(CUstream handle);

}  // namespace hazardlab::check::inject
