// The library CUDA loads into a checked program (CUDA_INJECTION64_PATH): its one context, and the rules for
// code that runs inside someone else's process.
//
// Ground rules for injected code (as ThreadSanitizer's runtime writes its own down):
// 1. One context. All process state is the one Session (session()), made at the entry and never destroyed:
//    driver calls and faults come while the program's static objects are being torn down. A thread's own state
//    is its ThreadState (this_thread()). Both live in session.cpp; no other file of inject/ keeps a
//    namespace-scope, function-static or thread-local mutable object (the layout lint holds it).
// 2. No exception leaves the library. The one CUPTI callback (dispatch.cpp) and each host-function marker the
//    driver runs (host_functions.cpp) catch everything and stop watching (stop_watching): the program then
//    runs on exactly as it would without the checker, and the run is never called clean.
// 3. Allocation, where it matters. A driver callback may allocate (it runs on the program's thread, inside a
//    driver call, where the program's own code could), but a launch reuses its thread's list of arguments
//    (ThreadState), so that a launch-heavy program pays no allocation per launch. The fault path allocates
//    nothing on its neighbour path (an access to a held page no copy owns), since a fault can come from inside
//    malloc; only an access that conflicts with a copy makes a finding, which allocates. An exception or a
//    failed allocation there is kept (FaultHandler::failure), and the next callback stops watching.
// 4. No static constructors beyond constant ones: the entry may run inside MPI_Init, before the program's own
//    cuInit, and more than once (injection.cpp).
// 5. The checker's own driver calls run inside an OurCall: their callbacks are ignored (the checker never
//    watches itself).
// 6. Locks: every part of the Session locks itself (the core's handles, the Checker, its allocations, the writer,
//    the kernel layouts), and none calls into inject/. The handles' lock is held across a stream first seen (a
//    driver query inside an OurCall, the Checker told): never take it inside the Checker's.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "checker/core/check_session.hpp"
#include "checker/fault/fault_handler.hpp"
#include "checker/inject/kernel_layouts.hpp"
#include "checker/inject/process_writer.hpp"

namespace hazardlab::check::inject {

struct Session {
  HostPageProtector protector;
  // The core's side: the settings as the launcher decided them (read once at the entry), the Checker with every
  // allocation it looks up, and the program's streams and graphs.
  CheckSession core{protector};
  Checker& checker = core.checker;
  ProcessWriter writer;
  KernelLayouts layouts;  // each kernel's parameter layout, as the driver gives it (locks itself)
  std::atomic<bool> disabled{false};  // a forked child (no CUDA there), or the checker stopped after its own error

  // What could not be watched, said once (each makes the run incomplete, never clean).
  std::atomic<std::uint64_t> captured_copies{0};  // copies issued into a capture whose graph the driver did not name
  std::atomic<std::uint64_t> batch_copies{0};     // cuMemcpyBatchAsync, which the checker does not read yet
  std::atomic<std::uint64_t> launches_without_layout{0};  // kernels whose parameters the driver could not list
  std::atomic<std::uint64_t> graphs_not_followed{0};  // instantiated with a node or an edge the checker does not model
  std::atomic<std::uint64_t> graphs_changed{0};       // executables updated after their instantiation
  std::atomic<bool> handler_replaced{false};
  std::atomic<bool> said_protection{false};
  // Protecting a managed allocation failed once (`--managed-memory`): managed memory is held no more, and the log
  // says it was not watched (managed_memory.cpp).
  std::atomic<bool> managed_unwatched{false};
  // Stream captures begun and not ended: while there are none, no stream is capturing and a launch needs no
  // query (work launched into a capture is not run: it becomes a node of the graph being built).
  std::atomic<std::int64_t> captures_open{0};
};

// The process's one Session, never destroyed.
Session& session();

// A thread's own state in the library.
struct ThreadState {
  // Inside one of the checker's own driver calls (OurCall): the callbacks of this thread's calls are ignored.
  bool inside_our_call = false;
  // The host function whose start marker this thread just queued, until its call returns.
  std::optional<WorkStamp> host_function_being_queued;
  // A launch's arguments, its capacity kept: a launch allocates no list of them.
  std::vector<KernelArgument> launch_arguments;
};
ThreadState& this_thread();

// Whether this is the first time CUDA runs the entry in this process (injection.cpp).
bool first_entry();

// The checker's own driver calls are not the program's: while an OurCall lives on a thread, the callbacks of
// that thread's driver calls are ignored.
struct OurCall {
  OurCall() { this_thread().inside_our_call = true; }
  ~OurCall() { this_thread().inside_our_call = false; }
  OurCall(const OurCall&) = delete;
  OurCall& operator=(const OurCall&) = delete;
};

}  // namespace hazardlab::check::inject
