// Run with the signal shim preloaded: each wrapped C library call that changes a signal's disposition must run
// the signal hook after it, on the calling thread, with the signal's number; never for a call that only asks or
// that failed, nor for the hook's own calls; and leave the call's result and errno as they are.
//   signal-calls-probe                     the signal shim, whatever else is preloaded
//   signal-calls-probe alone               ...and no thread shim (as `hazardlab check` preloads it under
//                                          `--protection keys` and `mprotect`: no thread or buffer call wrapped)
//   signal-calls-probe beside-thread-shim  ...and the thread shim too (as under range keys, the default)
// Prints "signal-calls-probe: every call as expected" and exits 0 when every call did, 1 when one did not, 77 when
// the signal shim is not preloaded, 2 on a bad argument.
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "checker/threads/signal_shim.hpp"
#include "checker/threads/thread_shim.hpp"

// Programs may still call these two: glibc exports bsd_signal without declaring it, and has sigset deprecated.
extern "C" sighandler_t bsd_signal(int signal, sighandler_t handler) noexcept;
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

std::vector<int> told;
int failures = 0;
bool hook_sets_a_handler = false;

void on_change(int signal) {
  errno = EDOM;  // a hook that changes errno must not change the program's
  told.push_back(signal);
  if (hook_sets_a_handler) {
    struct sigaction action{};
    action.sa_handler = SIG_IGN;
    sigaction(SIGUSR2, &action, nullptr);  // the hook's own change: not told again
  }
}

void handler(int) {}

// The calls since the last check told exactly these signals.
void expect(const char* call, std::vector<int> expected) {
  if (told != expected) {
    std::printf("%s: the hook was told of %zu change(s), not the %zu expected\n", call, told.size(), expected.size());
    ++failures;
  }
  told.clear();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string thread_shim = argc > 1 ? argv[1] : "";
  if (thread_shim != "" && thread_shim != "alone" && thread_shim != "beside-thread-shim") {
    std::fprintf(stderr, "usage: signal-calls-probe [alone|beside-thread-shim] (got '%s')\n", thread_shim.c_str());
    return 2;
  }
  const auto set_hook = hazardlab::check::shim::preloaded_signal_hook_setter();
  if (set_hook == nullptr) {
    std::puts("the signal shim is not preloaded");
    return 77;
  }
  const bool threads_wrapped = hazardlab::check::shim::preloaded_hook_setter() != nullptr;
  if ((thread_shim == "alone" && threads_wrapped) || (thread_shim == "beside-thread-shim" && !threads_wrapped)) {
    std::printf("the thread shim is %s, where '%s' expects otherwise\n", threads_wrapped ? "preloaded" : "not preloaded",
                thread_shim.c_str());
    ++failures;
  }
  set_hook(&on_change);
  struct sigaction action{}, previous{};
  action.sa_handler = &handler;

  errno = 0;
  if (sigaction(SIGUSR1, &action, &previous) != 0 || errno != 0) ++failures;
  expect("sigaction", {SIGUSR1});
  if (sigaction(SIGUSR1, nullptr, &previous) != 0 || previous.sa_handler != &handler) ++failures;
  expect("sigaction that only asks", {});
  if (sigaction(SIGKILL, &action, nullptr) != -1 || errno != EINVAL) {
    std::puts("sigaction of SIGKILL: not the C library's result and errno");
    ++failures;
  }
  expect("sigaction (failing)", {});

  if (signal(SIGUSR2, &handler) == SIG_ERR) ++failures;
  expect("signal", {SIGUSR2});
  if (sysv_signal(SIGUSR2, &handler) == SIG_ERR) ++failures;
  expect("sysv_signal", {SIGUSR2});
  if (bsd_signal(SIGUSR2, &handler) == SIG_ERR) ++failures;
  expect("bsd_signal", {SIGUSR2});
  if (sigset(SIGUSR2, &handler) == SIG_ERR) ++failures;
  expect("sigset", {SIGUSR2});
  if (signal(SIGKILL, &handler) != SIG_ERR || errno != EINVAL) {
    std::puts("signal of SIGKILL: not the C library's result and errno");
    ++failures;
  }
  expect("signal (failing)", {});

  hook_sets_a_handler = true;
  if (sigaction(SIGSEGV, &action, nullptr) != 0) ++failures;
  expect("sigaction whose hook sets a handler itself", {SIGSEGV});
  hook_sets_a_handler = false;
  struct sigaction now{};
  if (sigaction(SIGUSR2, nullptr, &now) != 0 || now.sa_handler != SIG_IGN) {
    std::puts("the hook's own sigaction did not take effect");
    ++failures;
  }

  set_hook(nullptr);
  if (sigaction(SIGUSR1, &action, nullptr) != 0) ++failures;
  expect("sigaction with no hook", {});
  std::printf("%d call(s) did not run the hook as expected\n", failures);
  if (failures == 0) std::puts("signal-calls-probe: every call as expected");
  return failures == 0 ? 0 : 1;
}
