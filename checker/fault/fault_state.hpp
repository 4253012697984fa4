// The fault path's process state, in one declared object owned by this room (checker/fault): what judges an
// access, where its findings go, the backend and its keys and plan, the first protection failure, the program's
// changes of the SIGSEGV handler, the start-up probe; and each thread's own part. Nothing else of the fault path
// keeps state at file scope (the layout lint refuses it): a fact of the path has one home.
//
// Never destroyed: a fault, a thread's end or a free of pinned memory can come while static objects are torn down.
// Internal to checker/fault: the rest of the checker sees fault_handler.hpp.
#pragma once

#include <signal.h>
#include <ucontext.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "checker/core/key_plan.hpp"
#include "checker/fault/fault_handler.hpp"
#include "checker/threads/signal_shim.hpp"

namespace hazardlab::check {

// What judges an access, where its findings go, and whether the path failed in its own code. Set by install()
// before the handlers are; read by them.
struct FaultPath {
  Checker* checker = nullptr;
  FaultFindings sink;
  std::atomic<bool> failed{false};
};

// The backend that protects held pages now, and the Keys backend's keys and plan: allocated once for the
// process, never freed (a page may carry one until the process ends). Every thread keeps `no_writes`
// write-disabled and `no_access` access-disabled, and every range key closed until the plan opens it.
struct ProtectionKeys {
  std::atomic<ProtectionBackend> backend{ProtectionBackend::Mprotect};
  int no_writes = -1, no_access = -1;
  std::vector<int> range_keys;
  std::size_t pkru_offset = 0;  // where a signal frame's XSAVE area holds PKRU (CPUID 0xD.9)
  bool played = false;          // the tests' keys: a thread's own PKRU is played (ThreadState::played_pkru)
  std::atomic<bool> in_forked_child{false};
  // The plan, and the lock every use of it takes (a signal handler's too: see PlanLock).
  std::mutex mutex;
  std::optional<KeyPlan> plan;
};

// The first protection change that failed, for the summary (HostPageProtector::first_failure).
struct FirstProtectionFailure {
  std::mutex mutex;
  std::optional<std::string> text;
  std::atomic<bool> any{false};  // asked at every copy: no lock, no copy of the text
  std::atomic<std::uint64_t> count{0};  // every failed change, so that a caller can tell whether its own failed
};

// The start-up probe of whether the kernel restores a thread's rights from its signal frame (key_faults.cpp).
struct FrameProbe {
  std::atomic<int> faults{0};
  void* page = nullptr;
  struct sigaction previous {};
};

// What the signal shim told of the program's changes of the SIGSEGV handler (FaultHandler::ensure_installed_at_copy),
// and whether the checker held pages since the kernel was last asked: a handler in front of the checker's only
// hid accesses if pages were held while it was there.
struct DispositionWatch {
  std::atomic<bool> told{false};              // the shim's hook is installed
  std::atomic<bool> changed{false};           // the program changed the handler since a copy last asked the kernel
  std::atomic<std::uint64_t> copies{0};       // copies since the hook was installed
  std::atomic<std::int64_t> holds_now{0};     // holds the protector was given and has not let go
  std::atomic<bool> held_since_asked{false};  // a hold since the kernel was last asked, or one then
};

// The signal route's (signal_route.cpp): the signal shim's calls where it is preloaded, and otherwise the program's
// dispositions as the kernel had them when the checker's handlers went in front.
struct SignalRoute {
  shim::ClaimedSignals shim;
  bool looked_up = false;
  struct sigaction program_segv {
  }, program_trap{};
};

// The interpreter's functions the Python stack needs, looked up once (python_stack.cpp); null outside Python.
struct PythonFunctions {
  std::atomic<void* (*)()> this_thread_state{nullptr};
  std::atomic<void (*)(int, void*)> dump_traceback{nullptr};
  std::atomic<void* (*)()> main_interpreter{nullptr};
  std::atomic<void* (*)(void*)> thread_head{nullptr};
  std::atomic<void* (*)(void*)> next_thread{nullptr};
  // CPython's stable C API, for a call site's stack while the calling thread holds the GIL (python_stack.hpp).
  std::atomic<int (*)()> holds_gil{nullptr};          // PyGILState_Check
  std::atomic<int (*)()> is_initialized{nullptr};     // Py_IsInitialized
  std::atomic<void* (*)()> current_frame{nullptr};    // PyEval_GetFrame: borrowed
  std::atomic<void* (*)(void*)> frame_code{nullptr};  // PyFrame_GetCode: a new reference
  std::atomic<void* (*)(void*)> frame_back{nullptr};  // PyFrame_GetBack: a new reference, or null
  std::atomic<int (*)(void*)> frame_line{nullptr};    // PyFrame_GetLineNumber
  std::atomic<void (*)(void*)> release{nullptr};      // Py_DecRef
};

struct FaultState {
  FaultPath path;
  SignalRoute route;
  PythonFunctions python;
  ProtectionKeys keys;
  FirstProtectionFailure protection_failure;
  FrameProbe frame_probe;
  DispositionWatch disposition;
  std::atomic<FaultHandler::StepObserver> step_observer{nullptr};
  // Every change of protection the checker made: a fault that finds its page open again is stale while they go on.
  std::atomic<std::uint64_t> protection_changes{0};
};
FaultState& fault_state();

// Per thread: the pages opened for the one instruction being stepped (and under the Keys backend the keys
// opened in this thread's rights for it), and the host function it runs.
// Initial-exec TLS: a signal handler must not make the loader allocate a thread's block.
constexpr int kMaxOpen = 4;
struct ThreadState {
  int open = 0;
  std::uintptr_t pages[kMaxOpen];
  int keys_opened[kMaxOpen];
  std::uintptr_t last_fault = 0;
  int stale_retries = 0;  // this address's faults in a row that found its page open again, protections unchanged
  std::uint64_t protection_changes_seen = 0;
  bool runs_host_functions = false;  // a host function's start marker ran on this thread
  bool makes_cuda_calls = false;     // the program made a CUDA call on this thread
  bool in_cuda_call = false;
  // Under the Keys backend:
  ThreadId id = 0;                     // the kernel's thread id, asked once (0: not yet)
  ucontext_t* frame = nullptr;         // inside the fault handler: this thread's rights live in its signal frame
  bool in_plan = false;                // this thread holds the plan's lock
  std::uint32_t pkru_before_step = 0;  // the frame's PKRU before the step opened keys: put back at the trap
  std::uint32_t played_pkru = 0;       // the played PKRU of this thread (the tests' keys)
  bool changing_own_handler = false;   // the checker's own change of a disposition (signal_route.hpp)
};
extern thread_local ThreadState thread_state __attribute__((tls_model("initial-exec")));

bool keys_protect();
ThreadId this_thread();  // the kernel's id of the calling thread, asked once

}  // namespace hazardlab::check
