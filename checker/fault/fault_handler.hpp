// Page protection and the fault path, with no CUDA: held pages are closed (by mprotect, or by a protection key);
// a host access to one raises SIGSEGV, which this handler routes to the Checker. An access the checker allows
// (a neighbour of the owned bytes in the same page, or a read of a copy's source) runs one instruction with its
// page open (the trap flag), and is closed again at the SIGTRAP that follows. x86-64 Linux only: the page-fault
// error code says whether the access was a write.
#pragma once

#include <signal.h>
#include <ucontext.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/core/check_settings.hpp"
#include "checker/core/checker.hpp"
#include "checker/fault/call_stack.hpp"
#include "checker/fault/python_stack.hpp"

namespace hazardlab::check {

// How held pages are closed to the program's threads.
// - Mprotect: a page's protection, changed by a system call for every hold and release. A step opens the page
//   for one instruction for every thread, so another thread's access in that window is not seen.
// - Keys (memory protection keys, x86-64), by a key plan (checker/core/key_plan.hpp): each pinned range carries
//   a key of its own, which a copy closes in its issuing thread's rights alone (WRPKRU, no system call) while no
//   other thread holds it open; otherwise, and where the thread shim is not preloaded (no range keys), the held
//   pages move to one of two keys every thread keeps closed. A step opens a key for one instruction in the
//   stepping thread's own rights only (its signal frame's PKRU): every other thread still faults.
enum class ProtectionBackend { Mprotect, Keys };
std::string_view name_of(ProtectionBackend backend);  // "mprotect", "protection-keys"

class HostPageProtector : public PageProtector {
 public:
  struct Choice {
    ProtectionBackend backend = ProtectionBackend::Mprotect;
    std::string why;  // why this backend: what the machine lacks for keys, or that it was asked for, and how
  };
  // Chooses the backend before any page is held. The choice is the process's (the fault path reads it); the
  // keys are allocated at the first choice of keys and kept for the process's lifetime, with range keys only
  // where the thread shim is preloaded (checker/threads), whose hooks the choice installs, and Keys (the two
  // keys alone) is not what was asked for.
  Choice choose(ProtectionRequest request);
  // For the tests on machines without keys (the CI machines): the Keys backend with these key numbers and this
  // PKRU offset, as if allocated, so that played faults (FaultHandler::play_fault) go the keys' way; a thread's
  // own PKRU is played too (played_thread_pkru). The pages are not really tagged there: pkey_mprotect fails,
  // which first_failure() says.
  Choice play_keys(int no_writes, int no_access, std::size_t pkru_offset, std::vector<int> range_keys = {});
  static std::uint32_t played_thread_pkru();
  // Under Keys, the thread shim's hooks: a thread starts with every key closed, and its rights are forgotten
  // when it ends (called by the shim; the tests call them on played threads).
  static void thread_started();
  static void thread_ended();
  // Under range keys, the shim's third hook, before a system call of the calling thread reaches
  // [buffer, buffer + bytes) (`kernel_writes`: the kernel writes there): the kernel obeys the thread's rights
  // without a fault, so the range keys of those pages are opened first as a fault would open them
  // (KeyPlan::kernel_access). Nothing to do, and no lock, while the thread has every range key open that far:
  // then false, which an empty buffer asks alone.
  static bool kernel_access(const void* buffer, std::size_t bytes, bool kernel_writes);
  // The child of a fork: its one thread has a new id, and every key is opened in it for good (the child has no
  // CUDA, so nothing of it is held again). Before its holds are let go.
  void forked_child();

  void apply(const PageChange& change) override;  // the mprotect backend's; keys decide by holds (below)
  void held(std::uintptr_t begin, std::uintptr_t end, Hold hold, const std::vector<PageChange>& changes) override;
  void let_go(std::uintptr_t begin, std::uintptr_t end, Hold hold, const std::vector<PageChange>& changes) override;
  void pinned(std::uintptr_t begin, std::uintptr_t end) override;
  void unpinned(std::uintptr_t begin, std::uintptr_t end) override;
  // The first protection change that failed, if any ("mprotect(0x..., 4096): Cannot allocate memory"): from
  // then on some held bytes were not protected, so the run is not wholly watched.
  [[nodiscard]] std::optional<std::string> first_failure() const;
  [[nodiscard]] bool failed() const;  // first_failure() has one: cheap enough for every copy
  // How many protection changes have failed so far: a hold that changed it was not (wholly) protected.
  [[nodiscard]] std::uint64_t failures() const;
};

int protection_of(PageAccess access);

// Where findings from a fault go (the injected library writes them to the process's log at once, so
// that a crash right after the access keeps them). `frames`: the access's stack, innermost first.
// `python`: the Python stack of the access ("File ..." lines; empty outside Python; the main thread's where
// the accessing thread never ran Python).
using FaultFindings = std::function<void(std::vector<Finding>&& findings, const std::vector<std::uintptr_t>& frames,
                                         const PythonStackText& python)>;

class FaultHandler {
 public:
  static bool supported();  // this architecture can tell reads from writes
  // Installs the SIGSEGV and SIGTRAP handlers in front of whatever the process had (which still gets every
  // fault and trap that is not the checker's, as the kernel would have delivered it: signal_route.hpp), and the
  // signal shim's hook where it is preloaded.
  static void install(Checker& checker, FaultFindings on_findings);
  // Is the checker's handler still the process's SIGSEGV handler? If not (the program replaced it around the
  // signal shim, or where the shim is not preloaded), it is put back in front, the program's own behind it, and
  // this returns false. Asks the kernel: a system call.
  static bool ensure_installed();
  // The same question at a copy, before its pages are held, and whether a replaced handler could have hidden an
  // access: only if the checker held pages while it was in front. Where the signal shim is preloaded, the
  // program's changes through the C library never reach the kernel (signal_route.hpp), and a copy asks the
  // kernel at one copy in kAskKernelEvery, for a change made around the C library (a raw rt_sigaction system
  // call), and after a change the shim told of. Elsewhere it asks the kernel at every copy.
  enum class HandlerAtCopy { InFront, ReplacedWhileNothingWasHeld, ReplacedWhilePagesWereHeld };
  static HandlerAtCopy ensure_installed_at_copy();
  // The protector's holds, for that question (HostPageProtector calls them).
  static void pages_held();
  static void pages_let_go();
  static constexpr std::uint64_t kAskKernelEvery = 64;
  // A host function's marker ran on this thread (the marker the injected library queues ahead of each host
  // function). A thread that runs them and makes no CUDA call of its own is the driver's: its accesses are
  // judged as a host function's, which one being for the checker to tell (Accessor::Kind::HostFunctionThread),
  // never what this thread ran last. A program thread that ran a marker (inside a synchronize) stays the
  // program's.
  static void mark_host_function_thread();
  // This thread is inside a CUDA call (set at the call's entry, cleared at its exit). A fault there is the
  // driver's own access, e.g. a small upload that the driver stages with the CPU at the call: the checker
  // judges the program's accesses against the documented order of its calls, not how the driver carries
  // them out, so the access runs with no finding.
  static void set_inside_cuda_call(bool inside);  // also: the program makes CUDA calls on this thread
  // What went wrong in the checker's own fault path (an exception, a failed allocation), if anything: the
  // fault was let through with its page opened, and the checker must stop watching. Null while all is well.
  static const char* failure();
  // For the fault path's tests: called on the stepping thread, inside the handler, each time a page has been
  // opened for one instruction, so that a test can see what the other threads could do in that window.
  using StepObserver = void (*)(std::uintptr_t page);
  static void observe_steps(StepObserver observer);
  // For the fault path's tests: the SIGSEGV and SIGTRAP handlers run on a played signal (a siginfo, and a
  // ucontext whose FPU state is a played XSAVE area), as the kernel would deliver it to this thread.
  static void play_fault(siginfo_t* info, ucontext_t* context);
  static void play_trap(siginfo_t* info, ucontext_t* context);
};

}  // namespace hazardlab::check
