// The thread shim: a small library `hazardlab check` preloads (LD_PRELOAD) into the program, in front of the C
// library, for what the injected library cannot see from CUDA's callbacks:
// - every thread the program creates runs the checker's hook on itself before its own function, and another
//   when it ends (its function returned, or pthread_exit, or cancellation). The protection-key backend needs
//   it: a thread inherits its creator's key rights, and one created while a key was open would reach owned
//   bytes without a fault and without the checker knowing it exists (checker/core/key_plan.hpp);
// - every C library call that has the kernel read or write a buffer of the program (read, write, recv, send,
//   fread, fwrite and their kin, buffer_calls.cpp) runs a third hook first: the kernel obeys the calling
//   thread's key rights but raises no fault, so a range key the thread has not opened yet would fail a correct
//   program's call with EFAULT;
// - every C library call that changes a signal's disposition (sigaction, signal and its kin, signal_calls.cpp)
//   runs a fourth hook after it; and once the checker has claimed a signal (its SIGSEGV and SIGTRAP handlers),
//   the program's handlers for it live behind the checker's: the shim keeps them, answers the program as the
//   kernel would have, and the checker passes them every signal that is not its own. A crash reporter that
//   installs its handler at start, or at any time through the C library, costs the checker nothing.
// The injected library, loaded later (when CUDA starts), finds the setter with dlsym and installs its hooks;
// until then, and in processes that never start CUDA, every call goes straight to the C library.
#pragma once

#include <dlfcn.h>
#include <signal.h>

#include <cstddef>

extern "C" {
// Runs on the thread itself: before the program's thread function, and as the thread ends.
using HazardlabThreadHook = void (*)();
// Runs on the calling thread before the kernel reaches [buffer, buffer + bytes); `kernel_writes` is 1 when the
// kernel writes there (read, recv, fread), 0 when it reads (write, send, fwrite). Returns 0 when the thread
// needs nothing opened for such an access whatever the buffer; asked with no buffer (nullptr, 0) first where
// reading the buffers' addresses is itself a risk (an I/O vector).
using HazardlabKernelAccessHook = int (*)(const void* buffer, std::size_t bytes, int kernel_writes);
// Installs the hooks (nullptr removes one); the symbol the injected library looks up.
void hazardlab_thread_shim_set_hooks(HazardlabThreadHook start, HazardlabThreadHook end,
                                     HazardlabKernelAccessHook kernel_access);
// Runs on the calling thread after a call of the program changed the disposition of `signal` (not when it only
// asked, nor when it failed), with errno as the call left it; not again for the hook's own calls.
using HazardlabSignalHook = void (*)(int signal);
void hazardlab_thread_shim_set_signal_hook(HazardlabSignalHook hook);  // nullptr removes it
// Puts `checkers` in front of `signal` in the kernel, for good, and keeps what the kernel had as the program's
// disposition, copied to `program`. From then on the program's changes of that signal through the C library
// are kept here as its own and never reach the kernel, and its questions are answered from here. Claiming a
// signal again (after a change around the C library) keeps what the kernel has now as the program's. 0, or -1
// with errno.
int hazardlab_thread_shim_claim_signal(int signal, const struct sigaction* checkers, struct sigaction* program);
// The program's disposition of a claimed signal, as it last set it; signal safe (no lock: a sequence count).
// With `delivered` set, as the kernel would deliver the signal to it: a handler set with SA_RESETHAND is
// reset to the default action first. 0, or -1 when the signal is not claimed.
int hazardlab_thread_shim_program_action(int signal, int delivered, struct sigaction* program);
// The kernel's disposition, set or asked directly, for the checker's own changes of a claimed signal (the
// default action back before a fault that is nobody's ends the process).
int hazardlab_thread_shim_kernel_sigaction(int signal, const struct sigaction* action, struct sigaction* previous);
}

namespace hazardlab::check::shim {
// The hook now (nullptr when none is installed), for buffer_calls.cpp.
HazardlabKernelAccessHook kernel_access_hook();
// The setters as a program finds them where the shim is preloaded; nullptr where it is not.
inline decltype(&hazardlab_thread_shim_set_hooks) preloaded_hook_setter() {
  return reinterpret_cast<decltype(&hazardlab_thread_shim_set_hooks)>(
      ::dlsym(RTLD_DEFAULT, "hazardlab_thread_shim_set_hooks"));
}
inline decltype(&hazardlab_thread_shim_set_signal_hook) preloaded_signal_hook_setter() {
  return reinterpret_cast<decltype(&hazardlab_thread_shim_set_signal_hook)>(
      ::dlsym(RTLD_DEFAULT, "hazardlab_thread_shim_set_signal_hook"));
}
// The three calls of claimed signals, all found or none (nullptr members where the shim is not preloaded).
struct ClaimedSignals {
  decltype(&hazardlab_thread_shim_claim_signal) claim = nullptr;
  decltype(&hazardlab_thread_shim_program_action) program_action = nullptr;
  decltype(&hazardlab_thread_shim_kernel_sigaction) kernel_sigaction = nullptr;
  [[nodiscard]] bool preloaded() const { return claim != nullptr; }
};
inline ClaimedSignals preloaded_claimed_signals() {
  ClaimedSignals calls;
  calls.claim = reinterpret_cast<decltype(calls.claim)>(::dlsym(RTLD_DEFAULT, "hazardlab_thread_shim_claim_signal"));
  calls.program_action =
      reinterpret_cast<decltype(calls.program_action)>(::dlsym(RTLD_DEFAULT, "hazardlab_thread_shim_program_action"));
  calls.kernel_sigaction = reinterpret_cast<decltype(calls.kernel_sigaction)>(
      ::dlsym(RTLD_DEFAULT, "hazardlab_thread_shim_kernel_sigaction"));
  if (calls.claim == nullptr || calls.program_action == nullptr || calls.kernel_sigaction == nullptr) return {};
  return calls;
}
}  // namespace hazardlab::check::shim
