#include "checker/fault/fault_handler.hpp"

#include "checker/fault/protection_keys.hpp"
#include "checker/fault/python_stack.hpp"
#include "checker/fault/signal_route.hpp"
#include "hazardlab/fnv1a.hpp"

#include <execinfo.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>

#include "checker/core/key_plan.hpp"
#include "checker/threads/thread_shim.hpp"

namespace hazardlab::check {

namespace {

// The fault path's process state, in one object: what judges an access, where its findings go, and whether the
// path failed in its own code (the handlers it stands in front of are the signal route's, signal_route.hpp). Set by install() before the handlers
// are; read by them.
struct FaultPath {
  Checker* checker = nullptr;
  FaultFindings sink;
  std::atomic<bool> failed{false};
};
// Never destroyed, like everything below that the handlers, the thread shim's hooks and the driver's callbacks
// reach: a fault, a thread's end or a free of pinned memory can come while static objects are torn down.
FaultPath& path = *new FaultPath;

// The backend that protects held pages now, and the Keys backend's keys and plan: allocated once for the
// process, never freed (a page may carry one until the process ends). Every thread keeps `no_writes`
// write-disabled and `no_access` access-disabled, and every range key closed until the plan opens it.
struct ProtectionKeys {
  std::atomic<ProtectionBackend> backend{ProtectionBackend::Mprotect};
  int no_writes = -1, no_access = -1;
  std::vector<int> range_keys;
  std::size_t pkru_offset = 0;  // where a signal frame's XSAVE area holds PKRU (CPUID 0xD.9)
  bool played = false;          // the tests' keys: a thread's own PKRU is played (ThreadState::played_pkru)
  std::atomic<bool> in_forked_child{false};
  // The plan, and the lock every use of it takes (a signal handler's too: see PlanLock).
  std::mutex mutex;
  std::optional<KeyPlan> plan;
};
ProtectionKeys& keys = *new ProtectionKeys;

bool keys_protect() { return keys.backend.load(std::memory_order_relaxed) == ProtectionBackend::Keys; }

// A thread's rights in its signal frame: the kernel restores PKRU from there when the handler returns (a WRPKRU
// in the handler would be undone). The frame's FPU state is an XSAVE area when the sw_reserved bytes of its
// legacy part carry FP_XSTATE_MAGIC1; xstate_size is its size.
constexpr std::size_t kSwReservedOffset = 464, kXstateSizeOffset = 480;
constexpr std::uint32_t kXstateMagic1 = 0x46505853;
std::byte* xsave_area(ucontext_t* uc, std::uint32_t& size) {
  auto* area = reinterpret_cast<std::byte*>(uc->uc_mcontext.fpregs);
  if (area == nullptr) return nullptr;
  std::uint32_t magic = 0;
  std::memcpy(&magic, area + kSwReservedOffset, sizeof magic);
  if (magic != kXstateMagic1) return nullptr;
  std::memcpy(&size, area + kXstateSizeOffset, sizeof size);
  return area;
}
// Absent from the area, PKRU is in its initial state: 0, every key open.
bool frame_pkru(ucontext_t* uc, std::uint32_t& pkru) {
  std::uint32_t size = 0;
  const std::byte* area = xsave_area(uc, size);
  if (area == nullptr) return false;
  pkru = read_saved_pkru(area, size, keys.pkru_offset, 0);
  return true;
}
bool set_frame_pkru(ucontext_t* uc, std::uint32_t pkru) {
  std::uint32_t size = 0;
  std::byte* area = xsave_area(uc, size);
  return area != nullptr && write_saved_pkru(area, size, keys.pkru_offset, pkru);
}
bool set_frame_rights(ucontext_t* uc, int key, PageAccess rights) {
  std::uint32_t pkru = 0;
  return frame_pkru(uc, pkru) && set_frame_pkru(uc, with_rights(pkru, key, rights));
}

// The first protection change that failed, for the summary (HostPageProtector::first_failure).
struct FirstProtectionFailure {
  std::mutex mutex;
  std::optional<std::string> text;
  std::atomic<bool> any{false};  // asked at every copy: no lock, no copy of the text
};
FirstProtectionFailure& protection_failure = *new FirstProtectionFailure;

std::atomic<FaultHandler::StepObserver> step_observer{nullptr};

// Every change of protection the checker made: a fault that finds its page open again is stale while they go on.
std::atomic<std::uint64_t> protection_changes{0};

// Per thread: the pages opened for the one instruction being stepped (and under the Keys backend the keys
// opened in this thread's rights for it), and the host function it runs.
// Initial-exec TLS: a signal handler must not make the loader allocate a thread's block.
constexpr int kMaxOpen = 4;
struct ThreadState {
  int open = 0;
  std::uintptr_t pages[kMaxOpen];
  int keys_opened[kMaxOpen];
  std::uintptr_t last_fault = 0;
  int stale_retries = 0;  // this address's faults in a row that found its page open again, protections unchanged
  std::uint64_t protection_changes_seen = 0;
  bool runs_host_functions = false;  // a host function's start marker ran on this thread
  bool makes_cuda_calls = false;     // the program made a CUDA call on this thread
  bool in_cuda_call = false;
  // Under the Keys backend:
  ThreadId id = 0;                    // the kernel's thread id, asked once (0: not yet)
  ucontext_t* frame = nullptr;        // inside the fault handler: this thread's rights live in its signal frame
  bool in_plan = false;               // this thread holds the plan's lock
  std::uint32_t pkru_before_step = 0; // the frame's PKRU before the step opened keys: put back at the trap
  std::uint32_t played_pkru = 0;      // the played PKRU of this thread (the tests' keys)
};
thread_local ThreadState state __attribute__((tls_model("initial-exec")));

ThreadId this_thread() {
  if (state.id == 0) state.id = static_cast<ThreadId>(::syscall(SYS_gettid));
  return state.id;
}

void note_protection_failure(const char* call, std::uintptr_t begin, std::size_t bytes, int err) {
  std::lock_guard lock(protection_failure.mutex);
  if (protection_failure.text) return;
  protection_failure.any.store(true);
  char text[160];
  std::snprintf(text, sizeof text, "%s(0x%lx, %lu) failed: %s", call, static_cast<unsigned long>(begin),
                static_cast<unsigned long>(bytes), std::strerror(err));
  protection_failure.text = text;
}

// The plan's lock. A thread that faults while it holds it (the allocator, inside the plan's own code, touching
// a tagged page of registered heap memory) cannot ask the plan: PlanLock::held_here() says so.
class PlanLock {
 public:
  PlanLock() : lock_(keys.mutex) { state.in_plan = true; }
  ~PlanLock() { state.in_plan = false; }
  PlanLock(const PlanLock&) = delete;
  PlanLock& operator=(const PlanLock&) = delete;
  static bool held_here() { return state.in_plan; }

 private:
  std::lock_guard<std::mutex> lock_;
};

// The calling thread's rights for `key`: in its signal frame inside the fault handler (the kernel restores PKRU
// from there), else in its PKRU itself (one WRPKRU), or in the played one.
void set_own_rights(int key, PageAccess rights) {
  if (state.frame != nullptr) {
    if (!set_frame_rights(state.frame, key, rights)) path.failed.store(true);
    return;
  }
  if (keys.played) {
    state.played_pkru = with_rights(state.played_pkru, key, rights);
    return;
  }
  write_thread_pkru(with_rights(read_thread_pkru(), key, rights));
}

void tag_pages(std::uintptr_t begin, std::uintptr_t end, int key) {
  protection_changes.fetch_add(1, std::memory_order_relaxed);
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

// For as long as it lives, the fault handler's thread changes its rights in its signal frame.
class InFrame {
 public:
  explicit InFrame(ucontext_t* uc) : previous_(state.frame) { state.frame = uc; }
  ~InFrame() { state.frame = previous_; }
  InFrame(const InFrame&) = delete;
  InFrame& operator=(const InFrame&) = delete;

 private:
  ucontext_t* previous_;
};

constexpr long kTrapFlag = 0x100;  // EFLAGS.TF: one instruction, then SIGTRAP
constexpr long kWriteFault = 0x2;  // page-fault error code bit 1: the access was a write

// The access's stack, innermost first, in a fixed array: the neighbour path allocates nothing, since a
// fault can come from inside malloc (registered heap memory shares pages with the allocator's headers).
constexpr int kMaxFrames = kMaxSiteFrames;
struct RawStack {
  std::uintptr_t frames[kMaxFrames];
  int count = 0;
};

void capture_access_stack(const ucontext_t* uc, RawStack& stack) {
  void* raw[kMaxFrames];
  const int n = backtrace(raw, kMaxFrames);
  int from = 0;
#if defined(__x86_64__)
  const auto pc = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  while (from < n && reinterpret_cast<std::uintptr_t>(raw[from]) != pc) ++from;
  if (from == n) stack.frames[stack.count++] = pc;  // the unwinder did not cross the signal frame
#else
  (void)uc;
#endif
  for (int i = from; i < n && stack.count < kMaxFrames; ++i)
    stack.frames[stack.count++] = reinterpret_cast<std::uintptr_t>(raw[i]);
}

SiteId site_of_raw(const RawStack& stack) { return site_of(stack.frames, stack.count); }

void step_one_instruction(ucontext_t* uc, std::uintptr_t page, int key) {
  if (state.open < kMaxOpen) {
    state.pages[state.open] = page;
    state.keys_opened[state.open++] = key;
  }
  if (const FaultHandler::StepObserver observe = step_observer.load(std::memory_order_relaxed)) observe(page);
#if defined(__x86_64__)
  uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
#endif
}

// The checker's own failure must not become the program's: the page opens for good and the access runs; the
// injected library stops watching at its next callback and says why.
void open_page_for_good(std::uintptr_t page) {
  path.failed.store(true);
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
  if (state.open == 0) state.pkru_before_step = before;
  if (!set_frame_pkru(uc, with_rights(before, key, rights))) {
    open_page_for_good(page);
    return;
  }
  step_one_instruction(uc, page, key);
}

// A fault on pinned memory whose page the checker holds open now: the page was closed when the access was made
// and opened since (a copy released by another thread). Run the instruction again; if the checker's protections
// have not changed since this thread's last such fault, not more than three times running: then it is not ours.
bool stale_again() {
  const std::uint64_t changes = protection_changes.load(std::memory_order_relaxed);
  if (changes != state.protection_changes_seen) {
    state.protection_changes_seen = changes;
    state.stale_retries = 0;
  }
  return state.stale_retries++ < 3;
}

// Judges an access to a held page against the copies that own it, and sends what it finds on. False when the
// checker failed in its own code (the page is then opened for good).
bool judge(ucontext_t* uc, std::uintptr_t address, bool write, Checker::FaultOutcome& outcome) {
  RawStack stack;
  capture_access_stack(uc, stack);
  // Named only when the access conflicts with a copy: the Python line too, so that two Python lines that
  // reach the host through the same native code are two sites.
  PythonStackText python;  // on the faulting thread's stack: no thread-local block of this size in a loaded library
  auto site = [&] {
    capture_python_stack(python, ThreadWithoutPython::MainThreadWhileWaiting);
    return fnv1a(python.view(), site_of_raw(stack));
  };
  // A thread the driver runs host functions on makes no CUDA call of its own. A program thread may run a
  // host function's marker too (the driver can run host functions on a thread blocked in a synchronize),
  // and is still judged as the program's.
  const Accessor by = state.runs_host_functions && !state.makes_cuda_calls ? Accessor::host_function_thread()
                                                                           : Accessor::program_thread();
  try {
    outcome = path.checker->host_access(address, write, by, site, static_cast<std::uint64_t>(this_thread()));
    if (!outcome.findings.empty() && path.sink)
      path.sink(std::move(outcome.findings), std::vector<std::uintptr_t>(stack.frames, stack.frames + stack.count),
               python);
  } catch (...) {
    open_page_for_good(page_floor(address));
    return false;
  }
  return true;
}

// The instruction being stepped, on a page opened for its read, now writes the same byte: it was judged when
// it faulted first (as the one access it is), so the page only opens the rest of the way. A write to another
// byte of the page (a string instruction) is judged as any access is.
bool rest_of_a_stepped_read(std::uintptr_t address, bool write, ucontext_t* uc) {
  if (!write || state.open == 0 || address != state.last_fault) return false;
  for (int i = 0; i < state.open; ++i) {
    if (state.pages[i] != page_floor(address)) continue;
    if (state.keys_opened[i] == 0)
      open_page_for_one_instruction(page_floor(address), true, uc);
    else if (!set_frame_rights(uc, state.keys_opened[i], PageAccess::ReadWrite))
      open_page_for_good(page_floor(address));
    return true;
  }
  return false;
}

// What the plan says of a fault, with its page moves made; the faulting thread's own rights changed in its frame.
KeyFaultDecision decide(std::uintptr_t address, bool write, ucontext_t* uc) {
  const InFrame in_frame(uc);
  const PlanLock lock;
  KeyFaultDecision d = keys.plan->fault(this_thread(), address, write);
  apply_key_actions(d.actions);
  return d;
}

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
  if (d.kind == KeyFaultDecision::Kind::OneInstruction && !state.in_cuda_call) {
    // A held page: judged (a finding lets go of the copy, which may open the page), then asked again.
    if (address != state.last_fault) state.stale_retries = 0;
    state.last_fault = address;
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
  state.last_fault = address;
  open_key_for_one_instruction(page_floor(address), d.key, d.rights, uc);
  return true;
}

// A fault under the mprotect backend: true when it was the checker's.
bool on_protection_fault(std::uintptr_t address, bool write, ucontext_t* uc) {
  if (rest_of_a_stepped_read(address, write, uc)) return true;
  if (state.in_cuda_call) {
    const PageAccess held = path.checker->access_at(address);
    if (held != PageAccess::ReadWrite) {
      if (held == PageAccess::None || write) open_page_for_one_instruction(page_floor(address), write, uc);
      return true;
    }
  }
  // A page another thread opened after this fault was raised reads as not held: run the instruction
  // again, but not forever (the same address found open three times running is not ours). Only such stale
  // faults count: a thread that polls one byte beside copies that come and go faults there again and again.
  if (address != state.last_fault) state.stale_retries = 0;
  state.last_fault = address;
  Checker::FaultOutcome outcome;
  if (!judge(uc, address, write, outcome)) return true;
  if (outcome.ours) {
    state.stale_retries = 0;
    if (outcome.step) open_page_for_one_instruction(page_floor(address), write, uc);
    return true;
  }
  return false;
}

void on_segv(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  auto* uc = static_cast<ucontext_t*>(context);
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  bool handled = false;
#if defined(__x86_64__)
  if (path.checker != nullptr && (info->si_code == SEGV_ACCERR || info->si_code == SEGV_PKUERR)) {
    const bool write = (uc->uc_mcontext.gregs[REG_ERR] & kWriteFault) != 0;
    if (keys_protect())
      handled = info->si_code == SEGV_PKUERR && on_key_fault(info, address, write, uc);
    else
      handled = on_protection_fault(address, write, uc);
    // Pinned memory the checker does not hold now: stale (released since), or the program's own fault.
    if (!handled && path.checker->pinned_kind(address).has_value()) handled = stale_again();
  }
#endif
  if (!handled) signal_route::pass_on(sig, info, context);
  errno = saved_errno;
}

void on_trap(int sig, siginfo_t* info, void* context) {
  if (state.open == 0) {
    signal_route::pass_on(sig, info, context);
    return;
  }
  const int saved_errno = errno;
  auto* uc = static_cast<ucontext_t*>(context);
  bool keys_opened = false;
  for (int i = 0; i < state.open; ++i) {
    if (state.keys_opened[i] != 0)
      keys_opened = true;
    else
      path.checker->restore_page(state.pages[i]);
  }
  if (keys_opened) (void)set_frame_pkru(uc, state.pkru_before_step);
  state.open = 0;
#if defined(__x86_64__)
  uc->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
#endif
  errno = saved_errno;
}

}  // namespace

int protection_of(PageAccess access) {
  switch (access) {
    case PageAccess::ReadWrite: return PROT_READ | PROT_WRITE;
    case PageAccess::ReadOnly: return PROT_READ;
    case PageAccess::None: return PROT_NONE;
  }
  return PROT_READ | PROT_WRITE;
}

namespace {

// The key backend lets a step through by changing the PKRU in the faulting thread's signal frame, which the kernel
// restores when the handler returns (measured on kernel 6.18). A kernel that did not would fault on the same
// access forever, so it is probed once, before any page is held: a scratch page with the no-access key is
// touched under a handler of the probe's own that opens the key in the frame. One fault: the kernel restored it.
// A second: it did not, and the probe opens the page itself so that the access ends.
struct FrameProbe {
  std::atomic<int> faults{0};
  void* page = nullptr;
  struct sigaction previous{};
};
FrameProbe frame_probe;

void on_probe_fault(int sig, siginfo_t* info, void* context) {
  if (info->si_addr != frame_probe.page) {
    signal_route::pass_to(frame_probe.previous, sig, info, context);  // not the probe's: another thread's own fault
    return;
  }
  if (frame_probe.faults.fetch_add(1) >= 1 ||
      !set_frame_rights(static_cast<ucontext_t*>(context), keys.no_access, PageAccess::ReadWrite))
    ::pkey_mprotect(frame_probe.page, page_size(), PROT_READ | PROT_WRITE, 0);
}

bool frame_rights_take_effect() {
  frame_probe.page = ::mmap(nullptr, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (frame_probe.page == MAP_FAILED) return false;
  bool restored = false;
  if (::pkey_mprotect(frame_probe.page, page_size(), PROT_READ | PROT_WRITE, keys.no_access) == 0) {
    struct sigaction probe{};
    probe.sa_sigaction = on_probe_fault;
    probe.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&probe.sa_mask);
    signal_route::kernel_sigaction(SIGSEGV, &probe, &frame_probe.previous);
    *static_cast<volatile unsigned char*>(frame_probe.page) = 1;
    signal_route::kernel_sigaction(SIGSEGV, &frame_probe.previous, nullptr);
    restored = frame_probe.faults.load() == 1;
    ::pkey_set(keys.no_access, PKEY_DISABLE_ACCESS);  // this thread's rights as every thread keeps them
  }
  ::munmap(frame_probe.page, page_size());
  return restored;
}

}  // namespace

std::string_view name_of(ProtectionBackend backend) {
  return backend == ProtectionBackend::Keys ? "protection-keys" : "mprotect";
}

HostPageProtector::Choice HostPageProtector::choose(ProtectionRequest request) {
  if (request == ProtectionRequest::Mprotect) {
    keys.backend = ProtectionBackend::Mprotect;
    return {ProtectionBackend::Mprotect, "asked for (--protection mprotect)"};
  }
  const std::string asked = request == ProtectionRequest::Keys || request == ProtectionRequest::RangeKeys
                                ? "protection keys were asked for, but "
                                : "";
  const KeySupport support = protection_key_support();
  if (!support.available) {
    keys.backend = ProtectionBackend::Mprotect;
    return {ProtectionBackend::Mprotect, asked + support.why_not};
  }
  static const std::string allocation_failure = [request] {
    // The allocating thread's rights are set here; every other thread's are closed for a new key already (the
    // kernel's initial PKRU closes every key but 0), and a read of a copy's source opens the no-writes key
    // there at its first fault.
    keys.no_writes = ::pkey_alloc(0, PKEY_DISABLE_WRITE);
    keys.no_access = keys.no_writes < 0 ? -1 : ::pkey_alloc(0, PKEY_DISABLE_ACCESS);
    if (keys.no_access < 0) {
      const std::string why = std::string("pkey_alloc failed: ") + std::strerror(errno);
      if (keys.no_writes >= 0) ::pkey_free(keys.no_writes);
      keys.no_writes = -1;
      return why;
    }
    keys.pkru_offset = pkru_offset();
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
        keys.range_keys.push_back(key);
      }
    }
    keys.plan.emplace(keys.range_keys, keys.no_writes, keys.no_access);
    if (!keys.range_keys.empty())
      set_hooks(&HostPageProtector::thread_started, &HostPageProtector::thread_ended,
                [](const void* buffer, std::size_t bytes, int kernel_writes) -> int {
                  return HostPageProtector::kernel_access(buffer, bytes, kernel_writes != 0) ? 1 : 0;
                });
    return std::string();
  }();
  if (!allocation_failure.empty()) {
    keys.backend = ProtectionBackend::Mprotect;
    return {ProtectionBackend::Mprotect, asked + allocation_failure};
  }
  keys.backend = ProtectionBackend::Keys;
  std::string why = request == ProtectionRequest::Keys        ? "asked for (--protection keys)"
                    : request == ProtectionRequest::RangeKeys ? "asked for (--protection range-keys)"
                                                              : "the CPU and the kernel offer memory protection keys";
  if (!keys.range_keys.empty())
    why += "; " + std::to_string(keys.range_keys.size()) +
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
  keys.no_writes = no_writes;
  keys.no_access = no_access;
  keys.pkru_offset = offset;
  keys.range_keys = std::move(range_keys);
  keys.played = true;
  keys.in_forked_child = false;
  keys.plan.emplace(keys.range_keys, no_writes, no_access);
  keys.backend = ProtectionBackend::Keys;
  return {ProtectionBackend::Keys, "played keys, for a test"};
}

std::uint32_t HostPageProtector::played_thread_pkru() { return state.played_pkru; }

void HostPageProtector::thread_started() {
  if (!keys_protect() || keys.in_forked_child.load()) return;
  const PlanLock lock;
  apply_key_actions(keys.plan->thread_started(this_thread()));
}

bool HostPageProtector::kernel_access(const void* buffer, std::size_t bytes, bool kernel_writes) {
  if (!keys_protect() || keys.range_keys.empty() || keys.in_forked_child.load()) return false;
  // The checker's own calls: inside its fault handler (whose rights are the frame's), or in a signal handler
  // that interrupted this thread inside the plan.
  if (state.frame != nullptr || PlanLock::held_here()) return false;
  const std::uint32_t pkru = keys.played ? state.played_pkru : read_thread_pkru();
  const PageAccess enough = kernel_writes ? PageAccess::ReadWrite : PageAccess::ReadOnly;
  const auto open_enough = [&](int key) {
    const PageAccess rights = rights_in(pkru, key);
    return rights == PageAccess::ReadWrite || rights == enough;
  };
  if (std::all_of(keys.range_keys.begin(), keys.range_keys.end(), open_enough) &&
      (kernel_writes || open_enough(keys.no_writes)))
    return false;
  if (bytes == 0) return true;
  const PlanLock lock;
  const auto begin = reinterpret_cast<std::uintptr_t>(buffer);
  // A length past the address space (the call will fail with EFAULT anyway) goes as far as its last page.
  const std::uintptr_t end = bytes > page_floor(UINTPTR_MAX) - begin ? page_floor(UINTPTR_MAX) : begin + bytes;
  apply_key_actions(keys.plan->kernel_access(this_thread(), begin, end, kernel_writes));
  return true;
}

void HostPageProtector::thread_ended() {
  if (!keys_protect() || keys.in_forked_child.load()) return;
  const PlanLock lock;
  keys.plan->thread_exited(this_thread());
}

void HostPageProtector::forked_child() {
  state.id = 0;
  keys.in_forked_child = true;
  if (!keys_protect()) return;
  // Another thread of the parent may have held the plan's lock at the fork: the child's copy would stay locked.
  new (&keys.mutex) std::mutex;
  for (int key : keys.range_keys) set_own_rights(key, PageAccess::ReadWrite);
}

void HostPageProtector::apply(const PageChange& change) {
  if (keys_protect()) return;  // keys follow the holds themselves (held, let_go)
  protection_changes.fetch_add(1, std::memory_order_relaxed);
  if (::mprotect(reinterpret_cast<void*>(change.begin), change.end - change.begin, protection_of(change.access)) != 0)
    note_protection_failure("mprotect", change.begin, change.end - change.begin, errno);
}

void HostPageProtector::held(std::uintptr_t begin, std::uintptr_t end, Hold hold,
                             const std::vector<PageChange>& changes) {
  FaultHandler::pages_held();
  if (!keys_protect()) return PageProtector::held(begin, end, hold, changes);
  const PlanLock lock;
  apply_key_actions(keys.plan->hold(this_thread(), begin, end, hold));
}

void HostPageProtector::let_go(std::uintptr_t begin, std::uintptr_t end, Hold hold,
                               const std::vector<PageChange>& changes) {
  FaultHandler::pages_let_go();
  if (!keys_protect()) return PageProtector::let_go(begin, end, hold, changes);
  const PlanLock lock;
  apply_key_actions(keys.plan->release(this_thread(), begin, end, hold));
}

void HostPageProtector::pinned(std::uintptr_t begin, std::uintptr_t end) {
  if (!keys_protect()) return;
  const PlanLock lock;
  apply_key_actions(keys.plan->pinned(this_thread(), begin, end));
}

void HostPageProtector::unpinned(std::uintptr_t begin, std::uintptr_t end) {
  if (!keys_protect()) return;
  const PlanLock lock;
  apply_key_actions(keys.plan->unpinned(begin, end));
}

bool HostPageProtector::failed() const { return protection_failure.any.load(std::memory_order_relaxed); }

std::optional<std::string> HostPageProtector::first_failure() const {
  std::lock_guard lock(protection_failure.mutex);
  return protection_failure.text;
}

bool FaultHandler::supported() {
#if defined(__x86_64__) && defined(__linux__)
  return true;
#else
  return false;
#endif
}

namespace {

// What the thread shim told of the program's changes of the SIGSEGV handler (FaultHandler::ensure_installed_at_copy),
// and whether the checker held pages since the kernel was last asked: a handler in front of the checker's only
// hid accesses if pages were held while it was there.
struct DispositionWatch {
  std::atomic<bool> told{false};         // the shim's hook is installed
  std::atomic<bool> changed{false};      // the program changed the handler since a copy last asked the kernel
  std::atomic<std::uint64_t> copies{0};  // copies since the hook was installed
  std::atomic<std::int64_t> holds_now{0};           // holds the protector was given and has not let go
  std::atomic<bool> held_since_asked{false};        // a hold since the kernel was last asked, or one then
};
DispositionWatch& disposition = *new DispositionWatch;

// The shim's hook, on the thread whose call changed a disposition, right after it. It only notes the change:
// the next copy asks the kernel and puts the checker's handler back in front, as it would have without the
// shim. Putting it back here would change what the program meets before then, as when its own SIGSEGV handler
// sets the default action back and raises the signal again to end the process. (A signal the shim keeps the
// program's handlers of, behind the checker's, is never told: the kernel's handler did not change.)
void disposition_changed(int signal) {
  if (signal == SIGSEGV && !signal_route::is_own_change()) disposition.changed.store(true);
}

// Asks the kernel whether the checker's SIGSEGV handler is still in front, and puts it back if not.
FaultHandler::HandlerAtCopy ask_the_kernel() {
  const bool exposed = disposition.held_since_asked.exchange(disposition.holds_now.load() > 0);
  if (signal_route::in_front(SIGSEGV, on_segv)) return FaultHandler::HandlerAtCopy::InFront;
  // Replaced in the kernel: by the program's sigaction (without the shim), or around the C library (a raw
  // rt_sigaction). Ours goes back in front; what the kernel had becomes the program's, behind it.
  signal_route::put_in_front(SIGSEGV, on_segv);
  return exposed ? FaultHandler::HandlerAtCopy::ReplacedWhilePagesWereHeld
                 : FaultHandler::HandlerAtCopy::ReplacedWhileNothingWasHeld;
}

}  // namespace

void FaultHandler::install(Checker& checker, FaultFindings on_findings) {
  path.checker = &checker;
  path.sink = std::move(on_findings);
  void* warm[2];
  (void)backtrace(warm, 2);  // loads the unwinder now, not first inside a fault
  find_python();
  signal_route::put_in_front(SIGSEGV, on_segv);
  signal_route::put_in_front(SIGTRAP, on_trap);
  if (const auto set_hook = shim::preloaded_signal_hook_setter()) {
    set_hook(&disposition_changed);
    disposition.told.store(true);
  }
}

FaultHandler::HandlerAtCopy FaultHandler::ensure_installed_at_copy() {
  const bool told_changed = disposition.changed.load(std::memory_order_relaxed) && disposition.changed.exchange(false);
  const bool due = disposition.copies.fetch_add(1, std::memory_order_relaxed) % kAskKernelEvery == 0;
  if (!disposition.told.load(std::memory_order_relaxed) || told_changed || due) return ask_the_kernel();
  return HandlerAtCopy::InFront;
}

bool FaultHandler::ensure_installed() { return ask_the_kernel() == HandlerAtCopy::InFront; }

void FaultHandler::pages_held() {
  disposition.holds_now.fetch_add(1, std::memory_order_relaxed);
  disposition.held_since_asked.store(true, std::memory_order_relaxed);
}
void FaultHandler::pages_let_go() { disposition.holds_now.fetch_sub(1, std::memory_order_relaxed); }

void FaultHandler::set_inside_cuda_call(bool inside) {
  state.in_cuda_call = inside;
  state.makes_cuda_calls = true;
}

const char* FaultHandler::failure() {
  return path.failed.load(std::memory_order_relaxed)
             ? "the fault path failed (an exception or a failed allocation while judging an access)"
             : nullptr;
}

void FaultHandler::mark_host_function_thread() { state.runs_host_functions = true; }

void FaultHandler::observe_steps(StepObserver observer) { step_observer.store(observer); }

void FaultHandler::play_fault(siginfo_t* info, ucontext_t* context) { on_segv(SIGSEGV, info, context); }
void FaultHandler::play_trap(siginfo_t* info, ucontext_t* context) { on_trap(SIGTRAP, info, context); }

}  // namespace hazardlab::check
