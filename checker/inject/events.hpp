// What the program's driver calls did, as typed events: each family's decoder (copies.cpp, memsets.cpp,
// launches.cpp, allocations.cpp, synchronization.cpp, graphs.cpp, host_functions.cpp) reads CUPTI's parameters
// into one of these, and its take() tells the checker. A handle is kept as the program passed it where the
// checker must ask the driver about it (whether its stream is capturing), beside the checker's key for it.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "checker/core/checker.hpp"
#include "checker/inject/device_ranges.hpp"
#include "checker/ptx/footprint_at_launch.hpp"

namespace hazardlab::check::inject {

struct CopyEnqueued {
  std::string_view api;
  CUstream handle = nullptr;
  StreamKey stream = {};
  CopyEnd src, dst;
  std::size_t bytes = 0;
  std::vector<DeviceRange> device = {};  // the device bytes it reads and writes
  CopyOrigin origin = CopyOrigin::StreamCall;
  GraphHostNodes host_nodes = GraphHostNodes::None;
};
void take(CopyEnqueued copy);  // copy_work.cpp

// A synchronous copy (rule 8): what the host waits for depends on the kinds of its two ends.
struct CopyCompleted {
  std::uint64_t context = 0;
  MemoryKind src = MemoryKind::Device, dst = MemoryKind::Device;
};

// A memset on a stream: a linear one (cuMemsetD8/16/32Async, which may write pinned host memory) or a pitched one.
enum class MemsetShape { Linear, Pitched };
struct MemsetEnqueued {
  std::string_view api;
  CUstream handle = nullptr;
  StreamKey stream = {};
  MemsetShape shape = MemsetShape::Linear;
  CUdeviceptr base = 0;
  std::size_t width = 0, pitch = 0, rows = 1;  // bytes per row; Linear: one row
};

struct KernelLaunched {
  CUstream handle = nullptr;
  StreamKey stream = {};
  CUfunction function = nullptr;
  const char* symbol = nullptr;
  void** params = nullptr;  // kernelParams, or
  void** extra = nullptr;   // the packed buffer's description
  ptx::LaunchShape shape;   // its grid and block
};
// A kernel handed a pointer into pinned host memory (`--kernels-own-mapped-memory`) or managed memory
// (`--managed-memory`): the core's KernelHold, and the stream as the program passed it.
struct KernelHeld {
  CUstream handle = nullptr;
  KernelHold hold;
};
void take(const KernelHeld& held);  // copy_work.cpp

// Memory the program allocated or freed, by its kind.
enum class Allocation { Device, PoolBlock, Pinned, Managed };
struct Allocated {
  Allocation kind = Allocation::Device;
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
  PinnedKind pinned = PinnedKind::HostAlloc;  // Pinned only
};
enum class Release { Free, Unmap, StreamOrdered, PinnedFree, Unregister };
struct Released {
  Release kind = Release::Free;
  std::uintptr_t base = 0;
  std::size_t bytes = 0;      // Unmap only: the driver call names it
  CUstream handle = nullptr;  // StreamOrdered only
  StreamKey stream = {};
};

// cuMemPrefetchAsync (and _v2) or cuStreamAttachMemAsync on managed memory: stream work that moves or attaches
// pages and waits for nothing, so it lets no kernel's hold go. `queued` says what the program may have taken for
// a fence: a prefetch to the CPU, or an attach (a prefetch to a GPU is Nothing). `bytes` 0: the whole allocation.
struct ManagedWorkQueued {
  QueuedBehindKernel queued = QueuedBehindKernel::Nothing;
  CUstream handle = nullptr;
  StreamKey stream = {};
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
};

// What the host now knows finished (rule 4): a stream's work, an event's, or a context's.
enum class Scope { Stream, Event, Context };
struct Synchronized {
  Scope scope = Scope::Stream;
  StreamKey stream = {};            // Stream
  std::uint64_t event = 0;     // Event
  std::uint64_t context = 0;   // Context
};
struct EventRecorded {
  std::uint64_t event = 0;
  StreamKey stream = {};
};
struct StreamWaited {
  StreamKey stream = {};
  std::uint64_t event = 0;
};

struct GraphLaunched {
  CUgraphExec exec = nullptr;
  CUstream handle = nullptr;
  StreamKey stream = {};
};

// cuLaunchHostFunc or cuStreamAddCallback: at its entry (the start marker goes ahead of the program's function)
// and at its exit (the end marker behind it).
enum class QueueSide { Entry, Exit };
struct HostFunctionQueued {
  QueueSide side = QueueSide::Entry;
  CUstream handle = nullptr;
  StreamKey stream = {};  // Entry only
};

}  // namespace hazardlab::check::inject
