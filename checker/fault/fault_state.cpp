#include "checker/fault/fault_state.hpp"

#include <sys/syscall.h>
#include <unistd.h>

namespace hazardlab::check {

FaultState& fault_state() {
  static FaultState& state = *new FaultState;  // never destroyed (fault_state.hpp)
  return state;
}

thread_local ThreadState thread_state __attribute__((tls_model("initial-exec")));

bool keys_protect() { return fault_state().keys.backend.load(std::memory_order_relaxed) == ProtectionBackend::Keys; }

ThreadId this_thread() {
  if (thread_state.id == 0) thread_state.id = static_cast<ThreadId>(::syscall(SYS_gettid));
  return thread_state.id;
}

}  // namespace hazardlab::check
