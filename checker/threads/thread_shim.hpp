// The thread shim: a small library `hazardlab check` preloads (LD_PRELOAD) into the program, so that every
// thread the program creates runs the checker's hook on itself before its own function, and another when it
// ends (its function returned, or pthread_exit, or cancellation). The protection-key backend needs it: a thread
// inherits its creator's key rights, and one created while a key was open would reach owned bytes without a
// fault and without the checker knowing it exists (checker/core/key_plan.hpp).
// The injected library, loaded later (when CUDA starts), finds the setter with dlsym and installs its hooks.
#pragma once

extern "C" {
// Runs on the thread itself: before the program's thread function, and as the thread ends.
using HazardlabThreadHook = void (*)();
// Installs the hooks (nullptr removes one); the symbol the injected library looks up.
void hazardlab_thread_shim_set_hooks(HazardlabThreadHook start, HazardlabThreadHook end);
}
