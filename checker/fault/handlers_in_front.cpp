// The checker's handlers in front of the program's: installed, and asked after at copies (FaultHandler's install,
// ensure_installed and ensure_installed_at_copy), with the signal shim's word on the program's changes.
#include <execinfo.h>
#include <signal.h>

#include "checker/fault/fault_steps.hpp"
#include "checker/fault/python_stack.hpp"
#include "checker/fault/signal_route.hpp"
#include "checker/threads/signal_shim.hpp"

namespace hazardlab::check {

namespace {

// The shim's hook, on the thread whose call changed a disposition, right after it. It only notes the change:
// the next copy asks the kernel and puts the checker's handler back in front, as it would have without the
// shim. Putting it back here would change what the program meets before then, as when its own SIGSEGV handler
// sets the default action back and raises the signal again to end the process. (A signal the shim keeps the
// program's handlers of, behind the checker's, is never told: the kernel's handler did not change.)
void disposition_changed(int signal) {
  if (signal == SIGSEGV && !signal_route::is_own_change()) fault_state().disposition.changed.store(true);
}

// Asks the kernel whether the checker's SIGSEGV handler is still in front, and puts it back if not.
FaultHandler::HandlerAtCopy ask_the_kernel() {
  const bool exposed =
      fault_state().disposition.held_since_asked.exchange(fault_state().disposition.holds_now.load() > 0);
  if (signal_route::in_front(SIGSEGV, on_segv)) return FaultHandler::HandlerAtCopy::InFront;
  // Replaced in the kernel: by the program's sigaction (without the shim), or around the C library (a raw
  // rt_sigaction). Ours goes back in front; what the kernel had becomes the program's, behind it.
  signal_route::put_in_front(SIGSEGV, on_segv);
  return exposed ? FaultHandler::HandlerAtCopy::ReplacedWhilePagesWereHeld
                 : FaultHandler::HandlerAtCopy::ReplacedWhileNothingWasHeld;
}

}  // namespace

void FaultHandler::install(Checker& checker, FaultFindings on_findings) {
  fault_state().path.checker = &checker;
  fault_state().path.sink = std::move(on_findings);
  void* warm[2];
  (void)backtrace(warm, 2);  // loads the unwinder now, not first inside a fault
  find_python();
  signal_route::put_in_front(SIGSEGV, on_segv);
  signal_route::put_in_front(SIGTRAP, on_trap);
  if (const auto set_hook = shim::preloaded_signal_hook_setter()) {
    set_hook(&disposition_changed);
    fault_state().disposition.told.store(true);
  }
}

FaultHandler::HandlerAtCopy FaultHandler::ensure_installed_at_copy() {
  const bool told_changed = fault_state().disposition.changed.load(std::memory_order_relaxed) &&
                            fault_state().disposition.changed.exchange(false);
  const bool due = fault_state().disposition.copies.fetch_add(1, std::memory_order_relaxed) % kAskKernelEvery == 0;
  if (!fault_state().disposition.told.load(std::memory_order_relaxed) || told_changed || due) return ask_the_kernel();
  return HandlerAtCopy::InFront;
}

bool FaultHandler::ensure_installed() { return ask_the_kernel() == HandlerAtCopy::InFront; }

void FaultHandler::pages_held() {
  fault_state().disposition.holds_now.fetch_add(1, std::memory_order_relaxed);
  fault_state().disposition.held_since_asked.store(true, std::memory_order_relaxed);
}
void FaultHandler::pages_let_go() { fault_state().disposition.holds_now.fetch_sub(1, std::memory_order_relaxed); }

}  // namespace hazardlab::check
