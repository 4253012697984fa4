// The page protector: how held pages are closed (mprotect, or by the key plan), chosen once per process.
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "checker/fault/fault_steps.hpp"
#include "checker/fault/protection_keys.hpp"
#include "checker/threads/thread_shim.hpp"

namespace hazardlab::check {

void note_protection_failure(const char* call, std::uintptr_t begin, std::size_t bytes, int err) {
  fault_state().protection_failure.count.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(fault_state().protection_failure.mutex);
  if (fault_state().protection_failure.text) return;
  fault_state().protection_failure.any.store(true);
  char text[160];
  std::snprintf(text, sizeof text, "%s(0x%lx, %lu) failed: %s", call, static_cast<unsigned long>(begin),
                static_cast<unsigned long>(bytes), std::strerror(err));
  fault_state().protection_failure.text = text;
}

int protection_of(PageAccess access) {
  switch (access) {
    case PageAccess::ReadWrite:
      return PROT_READ | PROT_WRITE;
    case PageAccess::ReadOnly:
      return PROT_READ;
    case PageAccess::None:
      return PROT_NONE;
  }
  return PROT_READ | PROT_WRITE;
}

std::string_view name_of(ProtectionBackend backend) {
  return backend == ProtectionBackend::Keys ? "protection-keys" : "mprotect";
}

HostPageProtector::Choice HostPageProtector::choose(ProtectionRequest request) {
  if (request == ProtectionRequest::Mprotect) {
    fault_state().keys.backend = ProtectionBackend::Mprotect;
    return {ProtectionBackend::Mprotect, "asked for (--protection mprotect)"};
  }
  const std::string asked = request == ProtectionRequest::Keys || request == ProtectionRequest::RangeKeys
                                ? "protection keys were asked for, but "
                                : "";
  const KeySupport support = protection_key_support();
  if (!support.available) {
    fault_state().keys.backend = ProtectionBackend::Mprotect;
    return {ProtectionBackend::Mprotect, asked + support.why_not};
  }
  static const std::string allocation_failure = [request] {
    // The allocating thread's rights are set here; every other thread's are closed for a new key already (the
    // kernel's initial PKRU closes every key but 0), and a read of a copy's source opens the no-writes key
    // there at its first fault.
    fault_state().keys.no_writes = ::pkey_alloc(0, PKEY_DISABLE_WRITE);
    fault_state().keys.no_access = fault_state().keys.no_writes < 0 ? -1 : ::pkey_alloc(0, PKEY_DISABLE_ACCESS);
    if (fault_state().keys.no_access < 0) {
      const std::string why = std::string("pkey_alloc failed: ") + std::strerror(errno);
      if (fault_state().keys.no_writes >= 0) ::pkey_free(fault_state().keys.no_writes);
      fault_state().keys.no_writes = -1;
      return why;
    }
    fault_state().keys.pkru_offset = pkru_offset();
    if (!frame_rights_take_effect())
      return std::string("this kernel does not restore a thread's rights from its signal frame (probed at start)");
    // Range keys only where every thread the program creates is seen starting (the preloaded thread shim):
    // a thread inherits its creator's rights, and one that inherited a range key open unseen would reach owned
    // bytes without a fault. At most kRangeKeys, so that a program that allocates keys of its own still can.
    constexpr int kRangeKeys = 8;
    // `--protection keys` asks for the two held-page keys alone.
    const auto set_hooks = shim::preloaded_hook_setter();
    if (set_hooks != nullptr && request != ProtectionRequest::Keys) {
      for (int k = 0; k < kRangeKeys; ++k) {
        const int key = ::pkey_alloc(0, PKEY_DISABLE_ACCESS);
        if (key < 0) break;
        fault_state().keys.range_keys.push_back(key);
      }
    }
    fault_state().keys.plan.emplace(fault_state().keys.range_keys, fault_state().keys.no_writes,
                                    fault_state().keys.no_access);
    if (!fault_state().keys.range_keys.empty())
      set_hooks(&HostPageProtector::thread_started, &HostPageProtector::thread_ended,
                [](const void* buffer, std::size_t bytes, int kernel_writes) -> int {
                  return HostPageProtector::kernel_access(buffer, bytes, kernel_writes != 0) ? 1 : 0;
                });
    return std::string();
  }();
  if (!allocation_failure.empty()) {
    fault_state().keys.backend = ProtectionBackend::Mprotect;
    return {ProtectionBackend::Mprotect, asked + allocation_failure};
  }
  fault_state().keys.backend = ProtectionBackend::Keys;
  std::string why = request == ProtectionRequest::Keys        ? "asked for (--protection keys)"
                    : request == ProtectionRequest::RangeKeys ? "asked for (--protection range-keys)"
                                                              : "the CPU and the kernel offer memory protection keys";
  if (!fault_state().keys.range_keys.empty())
    why += "; " + std::to_string(fault_state().keys.range_keys.size()) +
           " keys for pinned ranges, closed by the issuing thread alone at each copy";
  else
    why += request == ProtectionRequest::Keys
               ? "; held pages are moved to one of two keys at each copy"
               : "; held pages are moved to one of two keys at each copy (no range keys: the thread shim is not "
                 "preloaded, so threads the program creates cannot be seen to start)";
  return {ProtectionBackend::Keys, why};
}

HostPageProtector::Choice HostPageProtector::play_keys(int no_writes, int no_access, std::size_t offset,
                                                       std::vector<int> range_keys) {
  fault_state().keys.no_writes = no_writes;
  fault_state().keys.no_access = no_access;
  fault_state().keys.pkru_offset = offset;
  fault_state().keys.range_keys = std::move(range_keys);
  fault_state().keys.played = true;
  fault_state().keys.in_forked_child = false;
  fault_state().keys.plan.emplace(fault_state().keys.range_keys, no_writes, no_access);
  fault_state().keys.backend = ProtectionBackend::Keys;
  return {ProtectionBackend::Keys, "played keys, for a test"};
}

std::uint32_t HostPageProtector::played_thread_pkru() { return thread_state.played_pkru; }

void HostPageProtector::thread_started() {
  if (!keys_protect() || fault_state().keys.in_forked_child.load()) return;
  const PlanLock lock;
  apply_key_actions(fault_state().keys.plan->thread_started(this_thread()));
}

bool HostPageProtector::kernel_access(const void* buffer, std::size_t bytes, bool kernel_writes) {
  if (!keys_protect() || fault_state().keys.range_keys.empty() || fault_state().keys.in_forked_child.load())
    return false;
  // The checker's own calls: inside its fault handler (whose rights are the frame's), or in a signal handler
  // that interrupted this thread inside the plan.
  if (thread_state.frame != nullptr || PlanLock::held_here()) return false;
  const std::uint32_t pkru = fault_state().keys.played ? thread_state.played_pkru : read_thread_pkru();
  const PageAccess enough = kernel_writes ? PageAccess::ReadWrite : PageAccess::ReadOnly;
  const auto open_enough = [&](int key) {
    const PageAccess rights = rights_in(pkru, key);
    return rights == PageAccess::ReadWrite || rights == enough;
  };
  if (std::all_of(fault_state().keys.range_keys.begin(), fault_state().keys.range_keys.end(), open_enough) &&
      (kernel_writes || open_enough(fault_state().keys.no_writes)))
    return false;
  if (bytes == 0) return true;
  const PlanLock lock;
  const auto begin = reinterpret_cast<std::uintptr_t>(buffer);
  // A length past the address space (the call will fail with EFAULT anyway) goes as far as its last page.
  const std::uintptr_t end = bytes > page_floor(UINTPTR_MAX) - begin ? page_floor(UINTPTR_MAX) : begin + bytes;
  apply_key_actions(fault_state().keys.plan->kernel_access(this_thread(), begin, end, kernel_writes));
  return true;
}

void HostPageProtector::thread_ended() {
  if (!keys_protect() || fault_state().keys.in_forked_child.load()) return;
  const PlanLock lock;
  fault_state().keys.plan->thread_exited(this_thread());
}

void HostPageProtector::forked_child() {
  thread_state.id = 0;
  fault_state().keys.in_forked_child = true;
  if (!keys_protect()) return;
  // Another thread of the parent may have held the plan's lock at the fork: the child's copy would stay locked.
  new (&fault_state().keys.mutex) std::mutex;
  for (int key : fault_state().keys.range_keys) set_own_rights(key, PageAccess::ReadWrite);
}

void HostPageProtector::apply(const PageChange& change) {
  if (keys_protect()) return;  // keys follow the holds themselves (held, let_go)
  fault_state().protection_changes.fetch_add(1, std::memory_order_relaxed);
  if (::mprotect(reinterpret_cast<void*>(change.begin), change.end - change.begin, protection_of(change.access)) != 0)
    note_protection_failure("mprotect", change.begin, change.end - change.begin, errno);
}

void HostPageProtector::held(std::uintptr_t begin, std::uintptr_t end, Hold hold,
                             const std::vector<PageChange>& changes) {
  FaultHandler::pages_held();
  if (!keys_protect()) return PageProtector::held(begin, end, hold, changes);
  const PlanLock lock;
  apply_key_actions(fault_state().keys.plan->hold(this_thread(), begin, end, hold));
}

void HostPageProtector::let_go(std::uintptr_t begin, std::uintptr_t end, Hold hold,
                               const std::vector<PageChange>& changes) {
  FaultHandler::pages_let_go();
  if (!keys_protect()) return PageProtector::let_go(begin, end, hold, changes);
  const PlanLock lock;
  apply_key_actions(fault_state().keys.plan->release(this_thread(), begin, end, hold));
}

void HostPageProtector::pinned(std::uintptr_t begin, std::uintptr_t end) {
  if (!keys_protect()) return;
  const PlanLock lock;
  apply_key_actions(fault_state().keys.plan->pinned(this_thread(), begin, end));
}

void HostPageProtector::unpinned(std::uintptr_t begin, std::uintptr_t end) {
  if (!keys_protect()) return;
  const PlanLock lock;
  apply_key_actions(fault_state().keys.plan->unpinned(begin, end));
}

bool HostPageProtector::failed() const { return fault_state().protection_failure.any.load(std::memory_order_relaxed); }

std::uint64_t HostPageProtector::failures() const {
  return fault_state().protection_failure.count.load(std::memory_order_relaxed);
}

std::optional<std::string> HostPageProtector::first_failure() const {
  std::lock_guard lock(fault_state().protection_failure.mutex);
  return fault_state().protection_failure.text;
}

}  // namespace hazardlab::check
