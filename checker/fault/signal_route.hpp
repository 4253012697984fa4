// The signal route: the checker's SIGSEGV and SIGTRAP handlers stand in front of the program's, and every
// signal that is not the checker's own goes on to the program's disposition as the kernel would have delivered
// it. Where the signal shim is preloaded (`hazardlab check` preloads it under every protection), the program's
// handlers live behind the checker's in the shim (checker/threads/claimed_signals.hpp), so that the program's
// changes never displace the checker's handler; elsewhere the program's handler is the one the kernel had when the checker installed its own (and a program
// that replaces it is found at the next copy, FaultHandler::ensure_installed_at_copy).
#pragma once

#include <signal.h>

namespace hazardlab::check::signal_route {

using Handler = void (*)(int, siginfo_t*, void*);

// Puts `handler` in front of `sig`, keeping what was there as the program's. Again with `handler` already in
// front: nothing changes (installing again would chain the handler to itself).
void put_in_front(int sig, Handler handler);
// Whether the kernel's handler of `sig` is `handler` now: a system call.
bool in_front(int sig, Handler handler);
// Whether the program's handlers live in the signal shim, behind the checker's.
bool behind_in_the_shim();
// A signal that is not the checker's: to the program's handler, with the program's mask blocked while it runs
// (and the signal itself, without SA_NODEFER), once only with SA_RESETHAND. With no handler, the default action
// is put back in the kernel and the instruction faults again, or a signal sent is sent again: the process ends with
// the signal it would have had without the checker (a fault the kernel raised cannot be ignored). A SIGSEGV that is
// nobody's is said first, with the stack, so that a crash under the checker can be told from one of the checker's own
// making.
void pass_on(int sig, siginfo_t* info, void* context);
// The same to a disposition of the caller's (the start-up frame probe's, for a fault that is not the probe's).
void pass_to(const struct sigaction& program, int sig, siginfo_t* info, void* context);
// The kernel's disposition, set or asked directly, for the checker's own handlers (the start-up frame probe's).
int kernel_sigaction(int sig, const struct sigaction* action, struct sigaction* previous);

// The checker's own changes of a disposition: the signal shim's hook is told of them as of any other,
// and they are not the program's (is_own_change()).
class OwnHandlerChange {
 public:
  OwnHandlerChange();
  ~OwnHandlerChange();
  OwnHandlerChange(const OwnHandlerChange&) = delete;
  OwnHandlerChange& operator=(const OwnHandlerChange&) = delete;

 private:
  bool previous_;
};
bool is_own_change();  // on this thread, now

}  // namespace hazardlab::check::signal_route
