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
#include <dlfcn.h>
#include <signal.h>

#include <atomic>
#include <cerrno>

#include "checker/threads/thread_shim.hpp"

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

// A handler-setting call of the signal() family: told when it succeeded.
template <class Function>
sighandler_t set_handler(Function real, int signal, sighandler_t handler) {
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

HAZARDLAB_EXPORT void hazardlab_thread_shim_set_signal_hook(HazardlabSignalHook hook) {
  signal_hook.store(hook, std::memory_order_release);
}

HAZARDLAB_EXPORT int sigaction(int signal, const struct sigaction* action, struct sigaction* previous) noexcept {
  using Real = int (*)(int, const struct sigaction*, struct sigaction*);
  static const auto real = next_definition<Real>("sigaction");
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  const int result = real(signal, action, previous);
  if (result == 0 && action != nullptr) changed(signal);  // a query (no action) changes nothing
  return result;
}

HAZARDLAB_EXPORT sighandler_t signal(int signal, sighandler_t handler) noexcept {
  static const auto real = next_definition<sighandler_t (*)(int, sighandler_t)>("signal");
  return set_handler(real, signal, handler);
}
HAZARDLAB_EXPORT sighandler_t bsd_signal(int signal, sighandler_t handler) noexcept {
  static const auto real = next_definition<sighandler_t (*)(int, sighandler_t)>("bsd_signal");
  return set_handler(real, signal, handler);
}
HAZARDLAB_EXPORT sighandler_t sysv_signal(int signal, sighandler_t handler) noexcept {
  static const auto real = next_definition<sighandler_t (*)(int, sighandler_t)>("sysv_signal");
  return set_handler(real, signal, handler);
}
HAZARDLAB_EXPORT sighandler_t sigset(int signal, sighandler_t handler) noexcept {
  static const auto real = next_definition<sighandler_t (*)(int, sighandler_t)>("sigset");
  return set_handler(real, signal, handler);
}
