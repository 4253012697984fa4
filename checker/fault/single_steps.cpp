// One instruction let through a held page, and the page or key closed again at the SIGTRAP that follows (the
// trap flag); or, when the checker itself failed, the page opened for good.
#include <sys/mman.h>
#include <ucontext.h>

#include "checker/fault/fault_steps.hpp"
#include "checker/fault/protection_keys.hpp"

namespace hazardlab::check {

namespace {

void step_one_instruction(ucontext_t* uc, std::uintptr_t page, int key) {
  if (thread_state.open < kMaxOpen) {
    thread_state.pages[thread_state.open] = page;
    thread_state.keys_opened[thread_state.open++] = key;
  }
  if (const FaultHandler::StepObserver observe = fault_state().step_observer.load(std::memory_order_relaxed))
    observe(page);
#if defined(__x86_64__)
  uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
#endif
}

}  // namespace

// The checker's own failure must not become the program's: the page opens for good and the access runs; the
// injected library stops watching at its next callback and says why.
void open_page_for_good(std::uintptr_t page) {
  fault_state().path.failed.store(true);
  if (keys_protect())
    ::pkey_mprotect(reinterpret_cast<void*>(page), page_size(), PROT_READ | PROT_WRITE, 0);
  else
    ::mprotect(reinterpret_cast<void*>(page), page_size(), PROT_READ | PROT_WRITE);
}

// As little as the instruction needs. mprotect opens the page for every thread, so a read opens it for reading
// only, and another thread's write in that window still faults and is judged. (A read-modify-write faults
// again as a write while its page is open for reading: on_segv opens it the rest of the way.)
void open_page_for_one_instruction(std::uintptr_t page, bool write, ucontext_t* uc) {
  ::mprotect(reinterpret_cast<void*>(page), page_size(), write ? PROT_READ | PROT_WRITE : PROT_READ);
  step_one_instruction(uc, page, 0);
}

// A key opens for the stepping thread alone, through its signal frame: every other thread still faults on the
// page. Its PKRU as it was goes back at the trap.
void open_key_for_one_instruction(std::uintptr_t page, int key, PageAccess rights, ucontext_t* uc) {
  std::uint32_t before = 0;
  if (!frame_pkru(uc, before)) {
    open_page_for_good(page);  // no PKRU in the frame: the access cannot be let through for one instruction
    return;
  }
  if (thread_state.open == 0) thread_state.pkru_before_step = before;
  if (!set_frame_pkru(uc, with_rights(before, key, rights))) {
    open_page_for_good(page);
    return;
  }
  step_one_instruction(uc, page, key);
}

}  // namespace hazardlab::check
