// The program's dispositions of the signals the checker claimed (its SIGSEGV and SIGTRAP handlers stay in front
// of the program's): kept here, in the shim, where every change the program makes through the C library passes.
// signal_calls.cpp asks first whether a call is about a claimed signal; signal_shim.hpp declares the checker's
// side (claim, the program's action as a fault delivers it, the kernel's disposition directly).
#pragma once

#include <signal.h>

namespace hazardlab::check::shim {

// The C library's own sigaction, which reaches the kernel.
int kernel_sigaction(int signal, const struct sigaction* action, struct sigaction* previous);

// sigaction as the program calls it: true when `signal` is claimed, with the call answered from the program's
// disposition kept here as the kernel would have answered it (`result` 0); false when the call is the kernel's,
// and then it has not been made (the caller makes it).
bool program_sigaction(int signal, const struct sigaction* action, struct sigaction* previous, int& result);

// The program's handler of a claimed signal, for signal() and its kin: true when `signal` is claimed, with the
// handler set as that call would have set it (`flags` and `mask_itself`: the C library's flags for that call, and
// whether the signal itself is blocked while its handler runs) and the one before in `previous`.
bool program_sets_handler(int signal, sighandler_t handler, int flags, bool mask_itself, sighandler_t& previous);

}  // namespace hazardlab::check::shim
