// The signal shim: a small library `hazardlab check` preloads (LD_PRELOAD) into the program under every page
// protection, in front of the C library, so that the checker's SIGSEGV and SIGTRAP handlers stay first:
// - every C library call that changes a signal's disposition (sigaction, signal and its kin, signal_calls.cpp)
//   runs the checker's hook after it;
// - once the checker has claimed a signal (its SIGSEGV and SIGTRAP handlers), the program's handlers for it
//   live behind the checker's: the shim keeps them, answers the program as the kernel would have, and the
//   checker passes them every signal that is not its own (claimed_signals.cpp). A crash reporter that installs
//   its handler at start, or at any time through the C library (while a copy holds pages too), costs the
//   checker nothing.
// It wraps nothing else: the thread shim (thread_shim.hpp), which wraps thread creation and the C library's
// buffer calls for range keys, is a library of its own. The injected library, loaded later (when CUDA starts),
// finds these calls with dlsym; until then, and in processes that never start CUDA, every call goes straight
// to the C library.
#pragma once

#include <dlfcn.h>
#include <signal.h>

extern "C" {
// Runs on the calling thread after a call of the program changed the disposition of `signal` (not when it only
// asked, nor when it failed), with errno as the call left it; not again for the hook's own calls.
using HazardlabSignalHook = void (*)(int signal);
void hazardlab_signal_shim_set_hook(HazardlabSignalHook hook);  // nullptr removes it
// Puts `checkers` in front of `signal` in the kernel, for good, and keeps what the kernel had as the program's
// disposition, copied to `program`. From then on the program's changes of that signal through the C library
// are kept here as its own and never reach the kernel, and its questions are answered from here. Claiming a
// signal again (after a change around the C library) keeps what the kernel has now as the program's. 0, or -1
// with errno.
int hazardlab_signal_shim_claim(int signal, const struct sigaction* checkers, struct sigaction* program);
// The program's disposition of a claimed signal, as it last set it; signal safe (no lock: a sequence count).
// With `delivered` set, as the kernel would deliver the signal to it: a handler set with SA_RESETHAND is
// reset to the default action first. 0, or -1 when the signal is not claimed.
int hazardlab_signal_shim_program_action(int signal, int delivered, struct sigaction* program);
// The kernel's disposition, set or asked directly, for the checker's own changes of a claimed signal (the
// default action back before a fault that is nobody's ends the process).
int hazardlab_signal_shim_kernel_sigaction(int signal, const struct sigaction* action, struct sigaction* previous);
}

namespace hazardlab::check::shim {
// The hook's setter as a program finds it where the signal shim is preloaded; nullptr where it is not.
inline decltype(&hazardlab_signal_shim_set_hook) preloaded_signal_hook_setter() {
  return reinterpret_cast<decltype(&hazardlab_signal_shim_set_hook)>(
      ::dlsym(RTLD_DEFAULT, "hazardlab_signal_shim_set_hook"));
}
// The three calls of claimed signals, all found or none (nullptr members where the signal shim is not preloaded).
struct ClaimedSignals {
  decltype(&hazardlab_signal_shim_claim) claim = nullptr;
  decltype(&hazardlab_signal_shim_program_action) program_action = nullptr;
  decltype(&hazardlab_signal_shim_kernel_sigaction) kernel_sigaction = nullptr;
  [[nodiscard]] bool preloaded() const { return claim != nullptr; }
};
inline ClaimedSignals preloaded_claimed_signals() {
  ClaimedSignals calls;
  calls.claim = reinterpret_cast<decltype(calls.claim)>(::dlsym(RTLD_DEFAULT, "hazardlab_signal_shim_claim"));
  calls.program_action =
      reinterpret_cast<decltype(calls.program_action)>(::dlsym(RTLD_DEFAULT, "hazardlab_signal_shim_program_action"));
  calls.kernel_sigaction = reinterpret_cast<decltype(calls.kernel_sigaction)>(
      ::dlsym(RTLD_DEFAULT, "hazardlab_signal_shim_kernel_sigaction"));
  if (calls.claim == nullptr || calls.program_action == nullptr || calls.kernel_sigaction == nullptr) return {};
  return calls;
}
}  // namespace hazardlab::check::shim
