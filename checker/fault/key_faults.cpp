// The key plan's use in the fault path: a thread's rights in its signal frame, the plan's actions applied, a
// protection-key fault decided by the plan, and the probe of whether the kernel restores rights from the frame.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "checker/fault/fault_steps.hpp"
#include "checker/fault/protection_keys.hpp"
#include "checker/fault/signal_route.hpp"

namespace hazardlab::check {

// A thread's rights in its signal frame: the kernel restores PKRU from there when the handler returns (a WRPKRU
// in the handler would be undone). The frame's FPU state is an XSAVE area when the sw_reserved bytes of its
// legacy part carry FP_XSTATE_MAGIC1; xstate_size is its size.
constexpr std::size_t kSwReservedOffset = 464, kXstateSizeOffset = 480;
constexpr std::uint32_t kXstateMagic1 = 0x46505853;
namespace {
std::byte* xsave_area(ucontext_t* uc, std::uint32_t& size) {
  auto* area = reinterpret_cast<std::byte*>(uc->uc_mcontext.fpregs);
  if (area == nullptr) return nullptr;
  std::uint32_t magic = 0;
  std::memcpy(&magic, area + kSwReservedOffset, sizeof magic);
  if (magic != kXstateMagic1) return nullptr;
  std::memcpy(&size, area + kXstateSizeOffset, sizeof size);
  return area;
}
}  // namespace

// Absent from the area, PKRU is in its initial state: 0, every key open.
bool frame_pkru(ucontext_t* uc, std::uint32_t& pkru) {
  std::uint32_t size = 0;
  const std::byte* area = xsave_area(uc, size);
  if (area == nullptr) return false;
  pkru = read_saved_pkru(area, size, fault_state().keys.pkru_offset, 0);
  return true;
}
bool set_frame_pkru(ucontext_t* uc, std::uint32_t pkru) {
  std::uint32_t size = 0;
  std::byte* area = xsave_area(uc, size);
  return area != nullptr && write_saved_pkru(area, size, fault_state().keys.pkru_offset, pkru);
}
bool set_frame_rights(ucontext_t* uc, int key, PageAccess rights) {
  std::uint32_t pkru = 0;
  return frame_pkru(uc, pkru) && set_frame_pkru(uc, with_rights(pkru, key, rights));
}

// The calling thread's rights for `key`: in its signal frame inside the fault handler (the kernel restores PKRU
// from there), else in its PKRU itself (one WRPKRU), or in the played one.
void set_own_rights(int key, PageAccess rights) {
  if (thread_state.frame != nullptr) {
    if (!set_frame_rights(thread_state.frame, key, rights)) fault_state().path.failed.store(true);
    return;
  }
  if (fault_state().keys.played) {
    thread_state.played_pkru = with_rights(thread_state.played_pkru, key, rights);
    return;
  }
  write_thread_pkru(with_rights(read_thread_pkru(), key, rights));
}

void tag_pages(std::uintptr_t begin, std::uintptr_t end, int key) {
  fault_state().protection_changes.fetch_add(1, std::memory_order_relaxed);
  if (::pkey_mprotect(reinterpret_cast<void*>(begin), end - begin, PROT_READ | PROT_WRITE, key) != 0)
    note_protection_failure("pkey_mprotect", begin, end - begin, errno);
}

// In the plan's order, under its lock.
void apply_key_actions(const std::vector<KeyAction>& actions) {
  for (const KeyAction& a : actions) {
    if (a.kind == KeyAction::Kind::TagPages)
      tag_pages(a.begin, a.end, a.key);
    else
      set_own_rights(a.key, a.rights);
  }
}

namespace {

// For as long as it lives, the fault handler's thread changes its rights in its signal frame.
class InFrame {
 public:
  explicit InFrame(ucontext_t* uc) : previous_(thread_state.frame) { thread_state.frame = uc; }
  ~InFrame() { thread_state.frame = previous_; }
  InFrame(const InFrame&) = delete;
  InFrame& operator=(const InFrame&) = delete;

 private:
  ucontext_t* previous_;
};

// What the plan says of a fault, with its page moves made; the faulting thread's own rights changed in its frame.
KeyFaultDecision decide(std::uintptr_t address, bool write, ucontext_t* uc) {
  const InFrame in_frame(uc);
  const PlanLock lock;
  KeyFaultDecision d = fault_state().keys.plan->fault(this_thread(), address, write);
  apply_key_actions(d.actions);
  return d;
}

}  // namespace

// A protection-key fault, by the plan: true when it was the checker's. The kernel names the key the page's
// mapping carries when it looks, not necessarily the one the access faulted on, so the plan's own belief
// decides, never si_pkey (but in the one case the plan cannot be asked).
bool on_key_fault(siginfo_t* info, std::uintptr_t address, bool write, ucontext_t* uc) {
  if (rest_of_a_stepped_read(address, write, uc)) return true;
  if (PlanLock::held_here()) {
    // The checker's own code (the allocator, inside the plan) touched a tagged page: not the program's access.
    // Nobody can change a tag meanwhile (that takes the lock this thread holds), so the named key is the page's.
    open_key_for_one_instruction(page_floor(address), info->si_pkey, PageAccess::ReadWrite, uc);
    return true;
  }
  KeyFaultDecision d = decide(address, write, uc);
  if (d.kind == KeyFaultDecision::Kind::NotOurs) return false;
  if (d.kind == KeyFaultDecision::Kind::OneInstruction && !thread_state.in_cuda_call) {
    // A held page: judged (a finding lets go of the copy, which may open the page), then asked again.
    if (address != thread_state.last_fault) thread_state.stale_retries = 0;
    thread_state.last_fault = address;
    Checker::FaultOutcome outcome;
    const InFrame in_frame(uc);
    if (!judge(uc, address, write, outcome)) return true;
    d = decide(address, write, uc);
    if (d.kind == KeyFaultDecision::Kind::NotOurs) return true;  // let go: the instruction runs again unhindered
  }
  // Inside a CUDA call, the driver's own access runs with no finding (FaultHandler::set_inside_cuda_call).
  if (d.kind == KeyFaultDecision::Kind::OpenForGood) {
    if (!set_frame_rights(uc, d.key, d.rights)) open_page_for_good(page_floor(address));
    return true;
  }
  thread_state.last_fault = address;
  open_key_for_one_instruction(page_floor(address), d.key, d.rights, uc);
  return true;
}

namespace {

// The key backend lets a step through by changing the PKRU in the faulting thread's signal frame, which the kernel
// restores when the handler returns (measured on kernel 6.18). A kernel that did not would fault on the same
// access forever, so it is probed once, before any page is held: a scratch page with the no-access key is
// touched under a handler of the probe's own that opens the key in the frame. One fault: the kernel restored it.
// A second: it did not, and the probe opens the page itself so that the access ends.
void on_probe_fault(int sig, siginfo_t* info, void* context) {
  if (info->si_addr != fault_state().frame_probe.page) {
    signal_route::pass_to(fault_state().frame_probe.previous, sig, info,
                          context);  // not the probe's: another thread's own fault
    return;
  }
  if (fault_state().frame_probe.faults.fetch_add(1) >= 1 ||
      !set_frame_rights(static_cast<ucontext_t*>(context), fault_state().keys.no_access, PageAccess::ReadWrite))
    ::pkey_mprotect(fault_state().frame_probe.page, page_size(), PROT_READ | PROT_WRITE, 0);
}

}  // namespace

bool frame_rights_take_effect() {
  fault_state().frame_probe.page =
      ::mmap(nullptr, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (fault_state().frame_probe.page == MAP_FAILED) return false;
  bool restored = false;
  if (::pkey_mprotect(fault_state().frame_probe.page, page_size(), PROT_READ | PROT_WRITE,
                      fault_state().keys.no_access) == 0) {
    struct sigaction probe {};
    probe.sa_sigaction = on_probe_fault;
    probe.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&probe.sa_mask);
    signal_route::kernel_sigaction(SIGSEGV, &probe, &fault_state().frame_probe.previous);
    *static_cast<volatile unsigned char*>(fault_state().frame_probe.page) = 1;
    signal_route::kernel_sigaction(SIGSEGV, &fault_state().frame_probe.previous, nullptr);
    restored = fault_state().frame_probe.faults.load() == 1;
    ::pkey_set(fault_state().keys.no_access, PKEY_DISABLE_ACCESS);  // this thread's rights as every thread keeps them
  }
  ::munmap(fault_state().frame_probe.page, page_size());
  return restored;
}

}  // namespace hazardlab::check
