// The C library's calls that change a signal's disposition, each wrapped: the C library's own function runs
// first, with the same arguments, its result and errno unchanged; then, when it changed a disposition, the
// injected library's signal hook runs on the calling thread with the signal's number.
//
// Why: the checker's SIGSEGV handler must stay in front of the program's (checker/fault). Without this, the
// only way to know that the program replaced it is to ask the kernel, a system call at every watched copy (about
// 250 ns of the copy's callback on an H100 host). Told of a change, the next copy asks the kernel; otherwise a
// copy asks only now and then, for a change made around the C library (a raw rt_sigaction system call, which
// no wrapper sees). signal() and its kin are wrapped themselves: the C library calls its own sigaction from
// inside them, which does not pass through here.
//
// A signal the checker claimed (claimed_signals.hpp) never reaches the kernel from here: the program's change
// is kept as its own, and no hook runs, since the kernel's disposition did not change.
#include <dlfcn.h>
#include <signal.h>

#include <atomic>
#include <cerrno>

#include "checker/threads/claimed_signals.hpp"
#include "checker/threads/signal_shim.hpp"

namespace {

std::atomic<HazardlabSignalHook> signal_hook{nullptr};
// A sigaction the hook itself makes changes a disposition too: not told again, so that a hook that does can
// never run itself again without end.
thread_local bool in_hook = false;

void changed(int signal) {
  const HazardlabSignalHook hook = signal_hook.load(std::memory_order_acquire);
  if (hook == nullptr || in_hook) return;
  const int saved = errno;
  in_hook = true;
  hook(signal);
  in_hook = false;
  errno = saved;
}

template <class Function>
Function next_definition(const char* name) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

// A handler-setting call of the signal() family: told when it succeeded. For a claimed signal, the handler is
// kept as the C library's call would have set it (`flags`, and whether the signal is blocked in its handler).
template <class Function>
sighandler_t set_handler(Function real, int signal, sighandler_t handler, int flags, bool mask_itself) {
  if (handler != SIG_ERR && handler != SIG_HOLD) {
    sighandler_t previous = SIG_ERR;
    if (hazardlab::check::shim::program_sets_handler(signal, handler, flags, mask_itself, previous)) return previous;
  }
  if (real == nullptr) {
    errno = ENOSYS;
    return SIG_ERR;
  }
  const sighandler_t previous = real(signal, handler);
  if (previous != SIG_ERR) changed(signal);
  return previous;
}

}  // namespace

#define HAZARDLAB_EXPORT extern "C" __attribute__((visibility("default")))

HAZARDLAB_EXPORT void hazardlab_signal_shim_set_hook(HazardlabSignalHook hook) {
  signal_hook.store(hook, std::memory_order_release);
}

HAZARDLAB_EXPORT int sigaction(int signal, const struct sigaction* action, struct sigaction* previous) noexcept {
  using Real = int (*)(int, const struct sigaction*, struct sigaction*);
  static const auto real = next_definition<Real>("sigaction");
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (int kept = 0; hazardlab::check::shim::program_sigaction(signal, action, previous, kept)) return kept;
  const int result = real(signal, action, previous);
  if (result == 0 && action != nullptr) changed(signal);  // a query (no action) changes nothing
  return result;
}

HAZARDLAB_EXPORT sighandler_t signal(int signal, sighandler_t handler) noexcept {
  static const auto real = next_definition<sighandler_t (*)(int, sighandler_t)>("signal");
  return set_handler(real, signal, handler, SA_RESTART, true);  // BSD semantics, as the C library's signal()
}
HAZARDLAB_EXPORT sighandler_t bsd_signal(int signal, sighandler_t handler) noexcept {
  static const auto real = next_definition<sighandler_t (*)(int, sighandler_t)>("bsd_signal");
  return set_handler(real, signal, handler, SA_RESTART, true);
}
HAZARDLAB_EXPORT sighandler_t sysv_signal(int signal, sighandler_t handler) noexcept {
  static const auto real = next_definition<sighandler_t (*)(int, sighandler_t)>("sysv_signal");
  return set_handler(real, signal, handler, SA_RESETHAND | SA_NODEFER, false);  // System V: once, not masked
}
HAZARDLAB_EXPORT sighandler_t sigset(int signal, sighandler_t handler) noexcept {
  static const auto real = next_definition<sighandler_t (*)(int, sighandler_t)>("sigset");
  sigset_t was;
  const bool was_held = sigprocmask(SIG_BLOCK, nullptr, &was) == 0 && sigismember(&was, signal) == 1;
  sighandler_t previous = SIG_ERR;
  if (handler == SIG_HOLD || handler == SIG_ERR ||
      !hazardlab::check::shim::program_sets_handler(signal, handler, 0, false, previous))
    return set_handler(real, signal, handler, 0, false);  // the C library's, and SIG_HOLD only blocks
  // A claimed signal: as sigset does, a handler set is also a handler released.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, signal);
  sigprocmask(SIG_UNBLOCK, &mask, nullptr);
  return was_held ? SIG_HOLD : previous;
}
