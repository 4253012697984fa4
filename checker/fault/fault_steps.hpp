// The fault path's steps that its files share (internal to checker/fault): the key plan's use (key_faults.cpp),
// the page protector (page_protector.cpp) and the handler itself (fault_handler.cpp).
#pragma once

#include <signal.h>
#include <ucontext.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "checker/core/key_plan.hpp"
#include "checker/fault/fault_state.hpp"

namespace hazardlab::check {

// The plan's lock. A thread that faults while it holds it (the allocator, inside the plan's own code, touching
// a tagged page of registered heap memory) cannot ask the plan: PlanLock::held_here() says so.
class PlanLock {
 public:
  PlanLock() : lock_(fault_state().keys.mutex) { thread_state.in_plan = true; }
  ~PlanLock() { thread_state.in_plan = false; }
  PlanLock(const PlanLock&) = delete;
  PlanLock& operator=(const PlanLock&) = delete;
  static bool held_here() { return thread_state.in_plan; }

 private:
  std::lock_guard<std::mutex> lock_;
};

// key_faults.cpp: a thread's rights in its signal frame, the plan's actions applied (in the plan's order, under
// its lock), a protection-key fault (true when it was the checker's), and the start-up probe.
bool frame_pkru(ucontext_t* uc, std::uint32_t& pkru);
bool set_frame_pkru(ucontext_t* uc, std::uint32_t pkru);
bool set_frame_rights(ucontext_t* uc, int key, PageAccess rights);
void set_own_rights(int key, PageAccess rights);
void apply_key_actions(const std::vector<KeyAction>& actions);
bool on_key_fault(siginfo_t* info, std::uintptr_t address, bool write, ucontext_t* uc);
bool frame_rights_take_effect();

// page_protector.cpp: the first failure of a protection change, kept for the summary.
void note_protection_failure(const char* call, std::uintptr_t begin, std::size_t bytes, int err);

// fault_handler.cpp: the handlers, and an access judged.
void on_segv(int sig, siginfo_t* info, void* context);
void on_trap(int sig, siginfo_t* info, void* context);
bool rest_of_a_stepped_read(std::uintptr_t address, bool write, ucontext_t* uc);
bool judge(ucontext_t* uc, std::uintptr_t address, bool write, Checker::FaultOutcome& outcome);

// single_steps.cpp: the instruction let through for one step (the trap flag), or the page opened for good.
constexpr long kTrapFlag = 0x100;  // EFLAGS.TF: one instruction, then SIGTRAP
void open_page_for_good(std::uintptr_t page);
void open_page_for_one_instruction(std::uintptr_t page, bool write, ucontext_t* uc);
void open_key_for_one_instruction(std::uintptr_t page, int key, PageAccess rights, ucontext_t* uc);

}  // namespace hazardlab::check
