// Why the program's handlers of a claimed signal are kept here and not in the kernel: the checker's handler
// must stay first for every fault, or an access to held memory goes unjudged while the program's handler is in
// front; and the program must meet exactly what it would without the checker. Crash reporters, Python's
// faulthandler, Open MPI and language runtimes install their SIGSEGV handler at start and ask for the one before
// it, to pass it on. So the kernel keeps the checker's handler, the program's handler lives behind it, every
// question the program asks gets the answer the kernel would have given, and the checker's handler passes it
// every signal that is not the checker's own, as the kernel would deliver it (signal_shim.hpp).
//
// The dispositions are read inside the checker's signal handler: each is guarded by a sequence count (odd while
// it is written), which a reader retries, so that the reader takes no lock. Writers, rare (the program's
// changes, the checker's claims), take a lock with every signal of the thread blocked: a handler on the same
// thread can then never wait for the lock its own thread holds.
#include "checker/threads/claimed_signals.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "checker/threads/signal_shim.hpp"

namespace hazardlab::check::shim {

namespace {

constexpr int kSignals = 65;  // 1 to 64, the kernel's signals on x86-64 Linux

struct Disposition {
  std::atomic<bool> claimed{false};
  std::atomic<unsigned> sequence{0};
  struct sigaction action {};
};
Disposition dispositions[kSignals];

using Sigaction = int (*)(int, const struct sigaction*, struct sigaction*);
std::atomic<Sigaction> c_library_sigaction{nullptr};

std::atomic_flag writing = ATOMIC_FLAG_INIT;

class WriterLock {
 public:
  WriterLock() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved_);
    while (writing.test_and_set(std::memory_order_acquire)) sched_yield();
  }
  ~WriterLock() {
    writing.clear(std::memory_order_release);
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  sigset_t saved_;
};

bool claimable(int signal) { return signal > 0 && signal < kSignals; }

void store(Disposition& d, const struct sigaction& action) {
  d.sequence.fetch_add(1, std::memory_order_acq_rel);
  std::atomic_thread_fence(std::memory_order_release);
  std::memcpy(static_cast<void*>(&d.action), &action, sizeof action);
  d.sequence.fetch_add(1, std::memory_order_release);
}

struct sigaction load(const Disposition& d) {
  struct sigaction out {};
  for (;;) {
    const unsigned before = d.sequence.load(std::memory_order_acquire);
    if ((before & 1u) != 0) continue;
    std::memcpy(static_cast<void*>(&out), &d.action, sizeof out);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (d.sequence.load(std::memory_order_relaxed) == before) return out;
  }
}

// What the kernel keeps of a new disposition: it never blocks SIGKILL or SIGSTOP.
struct sigaction as_the_kernel_keeps(const struct sigaction& action) {
  struct sigaction kept = action;
  sigdelset(&kept.sa_mask, SIGKILL);
  sigdelset(&kept.sa_mask, SIGSTOP);
  return kept;
}

bool same_handler(const struct sigaction& a, const struct sigaction& b) {
  return ((a.sa_flags & SA_SIGINFO) != 0) == ((b.sa_flags & SA_SIGINFO) != 0) &&
         ((a.sa_flags & SA_SIGINFO) ? a.sa_sigaction == b.sa_sigaction : a.sa_handler == b.sa_handler);
}

}  // namespace

int kernel_sigaction(int signal, const struct sigaction* action, struct sigaction* previous) {
  Sigaction real = c_library_sigaction.load(std::memory_order_acquire);
  if (real == nullptr) {
    real = reinterpret_cast<Sigaction>(::dlsym(RTLD_NEXT, "sigaction"));
    c_library_sigaction.store(real, std::memory_order_release);
  }
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return real(signal, action, previous);
}

bool program_sigaction(int signal, const struct sigaction* action, struct sigaction* previous, int& result) {
  if (!claimable(signal) || !dispositions[signal].claimed.load(std::memory_order_acquire)) return false;
  Disposition& d = dispositions[signal];
  if (action == nullptr) {
    if (previous != nullptr) *previous = load(d);
  } else {
    const WriterLock lock;
    if (previous != nullptr) *previous = load(d);
    store(d, as_the_kernel_keeps(*action));
  }
  result = 0;
  return true;
}

bool program_sets_handler(int signal, sighandler_t handler, int flags, bool mask_itself, sighandler_t& previous) {
  if (!claimable(signal) || !dispositions[signal].claimed.load(std::memory_order_acquire)) return false;
  struct sigaction action {};
  action.sa_handler = handler;
  action.sa_flags = flags;
  sigemptyset(&action.sa_mask);
  if (mask_itself) sigaddset(&action.sa_mask, signal);
  struct sigaction before {};
  int result = 0;
  program_sigaction(signal, &action, &before, result);
  previous = (before.sa_flags & SA_SIGINFO)
                 ? reinterpret_cast<sighandler_t>(reinterpret_cast<void*>(before.sa_sigaction))
                 : before.sa_handler;
  return true;
}

}  // namespace hazardlab::check::shim

using namespace hazardlab::check::shim;

#define HAZARDLAB_EXPORT extern "C" __attribute__((visibility("default")))

HAZARDLAB_EXPORT int hazardlab_signal_shim_claim(int signal, const struct sigaction* checkers,
                                                 struct sigaction* program) {
  if (!claimable(signal) || checkers == nullptr) {
    errno = EINVAL;
    return -1;
  }
  Disposition& d = dispositions[signal];
  const WriterLock lock;
  struct sigaction kernel_had {};
  if (kernel_sigaction(signal, checkers, &kernel_had) != 0) return -1;
  // Claimed again with the checker's handler still in the kernel: the program's kept disposition stands.
  // Otherwise what the kernel had is the program's: its own, set before the claim or around the C library.
  if (!d.claimed.load(std::memory_order_relaxed) || !same_handler(kernel_had, *checkers)) store(d, kernel_had);
  d.claimed.store(true, std::memory_order_release);
  if (program != nullptr) *program = load(d);
  return 0;
}

HAZARDLAB_EXPORT int hazardlab_signal_shim_program_action(int signal, int delivered, struct sigaction* program) {
  if (!claimable(signal) || !dispositions[signal].claimed.load(std::memory_order_acquire)) return -1;
  Disposition& d = dispositions[signal];
  struct sigaction now = load(d);
  const bool a_handler = (now.sa_flags & SA_SIGINFO) != 0 || (now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN);
  if (delivered && a_handler && (now.sa_flags & SA_RESETHAND) != 0) {
    // As the kernel does on delivery: the handler runs once, the default action is back for the next one.
    struct sigaction reset {};
    reset.sa_handler = SIG_DFL;
    const WriterLock lock;
    store(d, reset);
  }
  if (program != nullptr) *program = now;
  return 0;
}

HAZARDLAB_EXPORT int hazardlab_signal_shim_kernel_sigaction(int signal, const struct sigaction* action,
                                                            struct sigaction* previous) {
  return kernel_sigaction(signal, action, previous);
}
