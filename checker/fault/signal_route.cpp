#include "checker/fault/signal_route.hpp"

#include <execinfo.h>
#include <pthread.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "checker/fault/fault_state.hpp"
#include "checker/threads/signal_shim.hpp"

namespace hazardlab::check::signal_route {

namespace {

const shim::ClaimedSignals& the_shim() {
  if (!fault_state().route.looked_up) {  // first from install(), outside any handler
    fault_state().route.shim = shim::preloaded_claimed_signals();
    fault_state().route.looked_up = true;
  }
  return fault_state().route.shim;
}

struct sigaction* kept_program_action(int sig) {
  SignalRoute& route = fault_state().route;
  return sig == SIGSEGV ? &route.program_segv : sig == SIGTRAP ? &route.program_trap : nullptr;
}

bool has_handler(const struct sigaction& action) {
  if (action.sa_flags & SA_SIGINFO) return action.sa_sigaction != nullptr;
  return action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN;
}

// The program's disposition as a signal delivered now meets it.
struct sigaction program_action(int sig) {
  struct sigaction program {};
  program.sa_handler = SIG_DFL;
  if (fault_state().route.shim.preloaded() && fault_state().route.shim.program_action(sig, 1, &program) == 0)
    return program;
  if (struct sigaction* kept = kept_program_action(sig)) {
    program = *kept;
    if (has_handler(program) && (program.sa_flags & SA_RESETHAND)) {  // as the kernel delivers it: once
      *kept = {};
      kept->sa_handler = SIG_DFL;
    }
  }
  return program;
}

// Async-signal-safe: write(2) and backtrace_symbols_fd only.
void write_text(const char* text) { (void)!::write(STDERR_FILENO, text, std::strlen(text)); }
void write_hex(std::uintptr_t value) {
  char digits[2 + 16 + 1] = "0x";
  int n = 2;
  for (int shift = 60; shift >= 0; shift -= 4) {
    const unsigned d = (value >> shift) & 0xF;
    if (n > 2 || d != 0 || shift == 0) digits[n++] = static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
  }
  digits[n] = '\0';
  write_text(digits);
}

void say_unhandled_fault(siginfo_t* info, void* context) {
  write_text("hazardlab check: SIGSEGV at ");
  write_hex(reinterpret_cast<std::uintptr_t>(info->si_addr));
#if defined(__x86_64__)
  write_text(", instruction ");
  write_hex(static_cast<std::uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]));
#else
  (void)context;
#endif
  write_text(" is not an access to memory the checker holds (si_code ");
  write_hex(static_cast<std::uintptr_t>(info->si_code));
  if (info->si_code == SEGV_PKUERR) {
    write_text(", protection key ");
    write_hex(static_cast<std::uintptr_t>(info->si_pkey));
  }
  write_text("); the program's own stack:\n");
  void* frames[48];
  backtrace_symbols_fd(frames, backtrace(frames, 48), STDERR_FILENO);
}

}  // namespace

OwnHandlerChange::OwnHandlerChange() : previous_(thread_state.changing_own_handler) {
  thread_state.changing_own_handler = true;
}
OwnHandlerChange::~OwnHandlerChange() { thread_state.changing_own_handler = previous_; }
bool is_own_change() { return thread_state.changing_own_handler; }

int kernel_sigaction(int sig, const struct sigaction* action, struct sigaction* previous) {
  const OwnHandlerChange own;
  if (the_shim().preloaded()) return fault_state().route.shim.kernel_sigaction(sig, action, previous);
  return ::sigaction(sig, action, previous);
}

bool behind_in_the_shim() { return the_shim().preloaded(); }

bool in_front(int sig, Handler handler) {
  struct sigaction current {};
  kernel_sigaction(sig, nullptr, &current);
  return (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == handler;
}

void put_in_front(int sig, Handler handler) {
  struct sigaction action {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  const OwnHandlerChange own;
  if (the_shim().preloaded()) {
    // The shim keeps what the kernel had as the program's, unless it is this handler (claimed before).
    (void)fault_state().route.shim.claim(sig, &action, nullptr);
    return;
  }
  if (in_front(sig, handler)) return;
  struct sigaction* kept = kept_program_action(sig);
  struct sigaction ignored {};
  ::sigaction(sig, &action, kept != nullptr ? kept : &ignored);
}

void pass_on(int sig, siginfo_t* info, void* context) { pass_to(program_action(sig), sig, info, context); }

void pass_to(const struct sigaction& program, int sig, siginfo_t* info, void* context) {
  const bool raised_by_the_kernel = info->si_code > 0;  // a fault or a trap, not kill(), raise() or sigqueue()
  if (!has_handler(program)) {
    // SIG_IGN holds for a signal sent; a fault or trap the kernel raised cannot be ignored: the kernel would end
    // the process, so the default action goes back.
    if (program.sa_handler == SIG_IGN && !(program.sa_flags & SA_SIGINFO) && !raised_by_the_kernel) return;
    if (sig == SIGSEGV && raised_by_the_kernel) say_unhandled_fault(info, context);
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    kernel_sigaction(sig, &fallback, nullptr);
    // A fault happens again when the handler returns; a signal sent (a crash handler's own raise() after it
    // set the default action) is sent again, now to the default action.
    if (!raised_by_the_kernel) ::raise(sig);
    return;
  }
  // As the kernel delivers a signal to a handler: its mask, and the signal itself unless SA_NODEFER, blocked
  // while it runs. A handler that jumps out (siglongjmp) leaves the mask as the kernel's delivery would.
  sigset_t blocked = program.sa_mask;
  if (!(program.sa_flags & SA_NODEFER)) sigaddset(&blocked, sig);
  sigset_t before;
  pthread_sigmask(SIG_BLOCK, &blocked, &before);
  if (program.sa_flags & SA_SIGINFO)
    program.sa_sigaction(sig, info, context);
  else
    program.sa_handler(sig);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

}  // namespace hazardlab::check::signal_route
