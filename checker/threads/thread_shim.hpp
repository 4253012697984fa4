// The thread shim: a small library `hazardlab check` preloads (LD_PRELOAD) into the program, in front of the C
// library, where range keys may be used (the default protection, and `--protection range-keys`), for what the
// injected library cannot see from CUDA's callbacks:
// - every thread the program creates runs the checker's hook on itself before its own function, and another
//   when it ends (its function returned, or pthread_exit, or cancellation). The protection-key backend needs
//   it: a thread inherits its creator's key rights, and one created while a key was open would reach owned
//   bytes without a fault and without the checker knowing it exists (checker/core/key_plan.hpp);
// - every C library call that has the kernel read or write a buffer of the program (read, write, recv, send,
//   fread, fwrite and their kin, buffer_calls.cpp) runs a third hook first: the kernel obeys the calling
//   thread's key rights but raises no fault, so a range key the thread has not opened yet would fail a correct
//   program's call with EFAULT.
// The program's signal calls are the signal shim's (signal_shim.hpp), a library of its own that is preloaded
// under every protection. The injected library, loaded later (when CUDA starts), finds the setter with dlsym
// and installs its hooks only where it uses range keys; until then, elsewhere, and in processes that never
// start CUDA, every call goes straight to the C library.
#pragma once

#include <dlfcn.h>

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
}

namespace hazardlab::check::shim {
// The hook now (nullptr when none is installed), for buffer_calls.cpp.
HazardlabKernelAccessHook kernel_access_hook();
// The setter as a program finds it where the thread shim is preloaded; nullptr where it is not.
inline decltype(&hazardlab_thread_shim_set_hooks) preloaded_hook_setter() {
  return reinterpret_cast<decltype(&hazardlab_thread_shim_set_hooks)>(
      ::dlsym(RTLD_DEFAULT, "hazardlab_thread_shim_set_hooks"));
}
}  // namespace hazardlab::check::shim
