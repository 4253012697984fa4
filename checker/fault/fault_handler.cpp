#include "checker/fault/fault_handler.hpp"

#include <execinfo.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cerrno>

#include "checker/fault/fault_steps.hpp"
#include "checker/fault/protection_keys.hpp"
#include "checker/fault/python_stack.hpp"
#include "checker/fault/signal_route.hpp"
#include "checker/threads/thread_shim.hpp"
#include "hazardlab/fnv1a.hpp"

namespace hazardlab::check {

namespace {

constexpr long kWriteFault = 0x2;  // page-fault error code bit 1: the access was a write

// The access's stack, innermost first, in a fixed array: the neighbour path allocates nothing, since a
// fault can come from inside malloc (registered heap memory shares pages with the allocator's headers).
constexpr int kMaxFrames = kMaxSiteFrames;
struct RawStack {
  std::uintptr_t frames[kMaxFrames];
  int count = 0;
};

void capture_access_stack(const ucontext_t* uc, RawStack& stack) {
  void* raw[kMaxFrames];
  const int n = backtrace(raw, kMaxFrames);
  int from = 0;
#if defined(__x86_64__)
  const auto pc = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  while (from < n && reinterpret_cast<std::uintptr_t>(raw[from]) != pc) ++from;
  if (from == n) stack.frames[stack.count++] = pc;  // the unwinder did not cross the signal frame
#else
  (void)uc;
#endif
  for (int i = from; i < n && stack.count < kMaxFrames; ++i)
    stack.frames[stack.count++] = reinterpret_cast<std::uintptr_t>(raw[i]);
}

SiteId site_of_raw(const RawStack& stack) { return site_of(stack.frames, stack.count); }

}  // namespace

namespace {

// A fault on pinned memory whose page the checker holds open now: the page was closed when the access was made
// and opened since (a copy released by another thread). Run the instruction again; if the checker's protections
// have not changed since this thread's last such fault, not more than three times running: then it is not ours.
bool stale_again() {
  const std::uint64_t changes = fault_state().protection_changes.load(std::memory_order_relaxed);
  if (changes != thread_state.protection_changes_seen) {
    thread_state.protection_changes_seen = changes;
    thread_state.stale_retries = 0;
  }
  return thread_state.stale_retries++ < 3;
}

}  // namespace

// Judges an access to a held page against the copies that own it, and sends what it finds on. False when the
// checker failed in its own code (the page is then opened for good).
bool judge(ucontext_t* uc, std::uintptr_t address, bool write, Checker::FaultOutcome& outcome) {
  RawStack stack;
  capture_access_stack(uc, stack);
  // Named only when the access conflicts with a copy: the Python line too, so that two Python lines that
  // reach the host through the same native code are two sites.
  PythonStackText python;  // on the faulting thread's stack: no thread-local block of this size in a loaded library
  auto site = [&] {
    capture_python_stack(python, ThreadWithoutPython::MainThreadWhileWaiting);
    return fnv1a(python.view(), site_of_raw(stack));
  };
  // A thread the driver runs host functions on makes no CUDA call of its own. A program thread may run a
  // host function's marker too (the driver can run host functions on a thread blocked in a synchronize),
  // and is still judged as the program's.
  const Accessor by = thread_state.runs_host_functions && !thread_state.makes_cuda_calls
                          ? Accessor::host_function_thread()
                          : Accessor::program_thread();
  try {
    outcome =
        fault_state().path.checker->host_access(address, write, by, site, static_cast<std::uint64_t>(this_thread()));
    if (!outcome.findings.empty() && fault_state().path.sink)
      fault_state().path.sink(std::move(outcome.findings),
                              std::vector<std::uintptr_t>(stack.frames, stack.frames + stack.count), python);
  } catch (...) {
    open_page_for_good(page_floor(address));
    return false;
  }
  return true;
}

// The instruction being stepped, on a page opened for its read, now writes the same byte: it was judged when
// it faulted first (as the one access it is), so the page only opens the rest of the way. A write to another
// byte of the page (a string instruction) is judged as any access is.
bool rest_of_a_stepped_read(std::uintptr_t address, bool write, ucontext_t* uc) {
  if (!write || thread_state.open == 0 || address != thread_state.last_fault) return false;
  for (int i = 0; i < thread_state.open; ++i) {
    if (thread_state.pages[i] != page_floor(address)) continue;
    if (thread_state.keys_opened[i] == 0)
      open_page_for_one_instruction(page_floor(address), true, uc);
    else if (!set_frame_rights(uc, thread_state.keys_opened[i], PageAccess::ReadWrite))
      open_page_for_good(page_floor(address));
    return true;
  }
  return false;
}

namespace {

// A fault under the mprotect backend: true when it was the checker's.
bool on_protection_fault(std::uintptr_t address, bool write, ucontext_t* uc) {
  if (rest_of_a_stepped_read(address, write, uc)) return true;
  if (thread_state.in_cuda_call) {
    const PageAccess held = fault_state().path.checker->access_at(address);
    if (held != PageAccess::ReadWrite) {
      if (held == PageAccess::None || write) open_page_for_one_instruction(page_floor(address), write, uc);
      return true;
    }
  }
  // A page another thread opened after this fault was raised reads as not held: run the instruction
  // again, but not forever (the same address found open three times running is not ours). Only such stale
  // faults count: a thread that polls one byte beside copies that come and go faults there again and again.
  if (address != thread_state.last_fault) thread_state.stale_retries = 0;
  thread_state.last_fault = address;
  Checker::FaultOutcome outcome;
  if (!judge(uc, address, write, outcome)) return true;
  if (outcome.ours) {
    thread_state.stale_retries = 0;
    if (outcome.step) open_page_for_one_instruction(page_floor(address), write, uc);
    return true;
  }
  return false;
}

}  // namespace

void on_segv(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  auto* uc = static_cast<ucontext_t*>(context);
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  bool handled = false;
#if defined(__x86_64__)
  if (fault_state().path.checker != nullptr && (info->si_code == SEGV_ACCERR || info->si_code == SEGV_PKUERR)) {
    const bool write = (uc->uc_mcontext.gregs[REG_ERR] & kWriteFault) != 0;
    if (keys_protect())
      handled = info->si_code == SEGV_PKUERR && on_key_fault(info, address, write, uc);
    else
      handled = on_protection_fault(address, write, uc);
    // Pinned memory the checker does not hold now: stale (released since), or the program's own fault.
    if (!handled && fault_state().path.checker->pinned_kind(address).has_value()) handled = stale_again();
  }
#endif
  if (!handled) signal_route::pass_on(sig, info, context);
  errno = saved_errno;
}

void on_trap(int sig, siginfo_t* info, void* context) {
  if (thread_state.open == 0) {
    signal_route::pass_on(sig, info, context);
    return;
  }
  const int saved_errno = errno;
  auto* uc = static_cast<ucontext_t*>(context);
  bool keys_opened = false;
  for (int i = 0; i < thread_state.open; ++i) {
    if (thread_state.keys_opened[i] != 0)
      keys_opened = true;
    else
      fault_state().path.checker->restore_page(thread_state.pages[i]);
  }
  if (keys_opened) (void)set_frame_pkru(uc, thread_state.pkru_before_step);
  thread_state.open = 0;
#if defined(__x86_64__)
  uc->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
#endif
  errno = saved_errno;
}

bool FaultHandler::supported() {
#if defined(__x86_64__) && defined(__linux__)
  return true;
#else
  return false;
#endif
}

void FaultHandler::set_inside_cuda_call(bool inside) {
  thread_state.in_cuda_call = inside;
  thread_state.makes_cuda_calls = true;
}

const char* FaultHandler::failure() {
  return fault_state().path.failed.load(std::memory_order_relaxed)
             ? "the fault path failed (an exception or a failed allocation while judging an access)"
             : nullptr;
}

void FaultHandler::mark_host_function_thread() { thread_state.runs_host_functions = true; }

void FaultHandler::observe_steps(StepObserver observer) { fault_state().step_observer.store(observer); }

void FaultHandler::play_fault(siginfo_t* info, ucontext_t* context) { on_segv(SIGSEGV, info, context); }
void FaultHandler::play_trap(siginfo_t* info, ucontext_t* context) { on_trap(SIGTRAP, info, context); }

}  // namespace hazardlab::check
