// The fault path on ordinary memory: real page protection, real SIGSEGV and single steps, with the
// checker told of copies that no GPU makes. Neighbours in one page, two copies sharing a page, several
// threads, releases while other threads fault, and a fault that is not the checker's. Every test runs under
// both backends: mprotect, and protection keys where the CPU and kernel offer them (skipped, saying why, where
// they do not).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "checker/fault/fault_handler.hpp"
#include "checker/fault/python_stack.hpp"
#include "checker/threads/signal_shim.hpp"

namespace hazardlab::check {
namespace {

struct FaultPath : ::testing::TestWithParam<ProtectionBackend> {
  static constexpr std::size_t kPages = 8;
  HostPageProtector protector;
  Checker checker{protector};
  unsigned char* memory = nullptr;
  std::mutex found_mutex;
  std::vector<Finding> found;

  void SetUp() override {
    const HostPageProtector::Choice choice = protector.choose(
        GetParam() == ProtectionBackend::Keys ? ProtectionRequest::Keys : ProtectionRequest::Mprotect);
    if (choice.backend != GetParam()) GTEST_SKIP() << choice.why;
    void* p = ::mmap(nullptr, kPages * page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    memory = static_cast<unsigned char*>(p);
    std::memset(memory, 0x11, kPages * page_size());
    checker.pinned_allocated(addr(0), kPages * page_size(), PinnedKind::Registered);
    FaultHandler::install(checker, [this](std::vector<Finding>&& f, const std::vector<std::uintptr_t>& frames,
                                          const PythonStackText&) {
      EXPECT_FALSE(frames.empty());
      std::lock_guard lock(found_mutex);
      for (Finding& x : f) found.push_back(std::move(x));
    });
  }
  void TearDown() override {
    // The program's SIGSEGV disposition back to the default, behind the checker's handler, for the next test.
    struct sigaction fallback{};
    fallback.sa_handler = SIG_DFL;
    sigaction(SIGSEGV, &fallback, nullptr);
    FaultHandler::ensure_installed();
    if (memory == nullptr) return;
    checker.release_everything();
    // Unpinned before it is unmapped, as a program frees pinned memory: its pages carry no key afterwards.
    (void)checker.pinned_released(addr(0), true, 0, 0);
    ::munmap(memory, kPages * page_size());
  }
  std::uintptr_t addr(std::size_t offset) const { return reinterpret_cast<std::uintptr_t>(memory) + offset; }
  void upload(std::size_t offset, std::size_t bytes, StreamKey s = {}, SiteId site = 1) {
    checker.copy_async(AsyncCopy{"cuMemcpyHtoDAsync_v2", s, {MemoryKind::PinnedHost, HostFootprint::linear(addr(offset), bytes)},
                                 {MemoryKind::Device, {}}, bytes, site});
  }
  void download(std::size_t offset, std::size_t bytes, StreamKey s = {}, SiteId site = 2) {
    checker.copy_async(AsyncCopy{"cuMemcpyDtoHAsync_v2", s, {MemoryKind::Device, {}},
                                 {MemoryKind::PinnedHost, HostFootprint::linear(addr(offset), bytes)}, bytes, site});
  }
  std::size_t findings() {
    std::lock_guard lock(found_mutex);
    return found.size();
  }
};

// volatile: the compiler must make every access the test writes.
void write_byte(unsigned char* p, unsigned char v) { *static_cast<volatile unsigned char*>(p) = v; }
unsigned char read_byte(const unsigned char* p) { return *static_cast<const volatile unsigned char*>(p); }

TEST_P(FaultPath, AWriteToOwnedBytesIsFoundAndStillHappens) {
  upload(100, 1000);
  EXPECT_EQ(read_byte(memory + 200), 0x11);  // reading a source: no fault at all
  EXPECT_EQ(findings(), 0u);
  write_byte(memory + 300, 0x22);
  ASSERT_EQ(findings(), 1u);
  EXPECT_EQ(found[0].kind, FindingKind::HostWroteCopySource);
  EXPECT_EQ(found[0].offset, 200u);
  EXPECT_EQ(read_byte(memory + 300), 0x22);  // the program computes what it computes without the checker
}

// `--managed-memory` on ordinary memory standing in for a managed allocation (no pinned range: under keys, the
// held pages move to a strict key): a kernel's hold protects it through the same protector, a host read is found
// and still reads what it would. A hold on pages that cannot be protected (here: unmapped) counts a failure, which
// the injected library takes as "managed memory not watched"; a hold that was protected counts none.
TEST_P(FaultPath, AKernelsHoldOnManagedMemoryIsProtectedOrCountsAFailure) {
  void* p = ::mmap(nullptr, 2 * page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto* managed = static_cast<unsigned char*>(p);
  std::memset(managed, 0x5a, 2 * page_size());
  const auto base = reinterpret_cast<std::uintptr_t>(managed);
  const StreamKey s{0, 0x5a};
  checker.stream_created(s, StreamKind::NonBlocking);
  const std::uint64_t failures_before = protector.failures();
  checker.kernel_holds(KernelHold{"fill", s, HostFootprint::linear(base, 2 * page_size()), KernelUse::MayWrite, 7,
                                  KernelHeldMemory::Managed});
  EXPECT_EQ(protector.failures(), failures_before);
  EXPECT_EQ(read_byte(managed + page_size() + 3), 0x5a);
  ASSERT_EQ(findings(), 1u);
  EXPECT_EQ(found[0].hazard(), "managed-host-access-during-kernel");
  checker.stream_synchronized(s);
  write_byte(managed, 0x66);
  EXPECT_EQ(findings(), 1u);
  ::munmap(p, 2 * page_size());

  checker.kernel_holds(KernelHold{"fill", s, HostFootprint::linear(base, 2 * page_size()), KernelUse::MayWrite, 8,
                                  KernelHeldMemory::Managed});
  EXPECT_GT(protector.failures(), failures_before);
  checker.let_go_managed_holds();
}

TEST_P(FaultPath, TheDriversOwnAccessInsideACudaCallIsNoFindingAndLeavesTheCopyWatched) {
  download(100, 1000);
  FaultHandler::set_inside_cuda_call(true);  // e.g. an upload the driver stages with the CPU at its call
  EXPECT_EQ(read_byte(memory + 200), 0x11);
  write_byte(memory + 201, 0x44);
  FaultHandler::set_inside_cuda_call(false);
  EXPECT_EQ(findings(), 0u);
  EXPECT_EQ(read_byte(memory + 300), 0x11);  // the program's own read: found
  ASSERT_EQ(findings(), 1u);
  EXPECT_EQ(found[0].offset, 200u);
  EXPECT_EQ(read_byte(memory + 201), 0x44);
}

TEST_P(FaultPath, NeighboursInTheSamePageAreAccessedWithNoFindingAndThePageStaysHeld) {
  download(1000, 100);
  write_byte(memory + 10, 0x33);                  // same page, before the copy's bytes
  EXPECT_EQ(read_byte(memory + 2000), 0x11);      // same page, after them
  EXPECT_EQ(read_byte(memory + 10), 0x33);
  EXPECT_EQ(findings(), 0u);
  EXPECT_EQ(checker.access_at(addr(0)), PageAccess::None);  // protected again after each step
  EXPECT_EQ(read_byte(memory + 1050), 0x11);      // and the copy's own bytes are still watched
  EXPECT_EQ(findings(), 1u);
  EXPECT_GE(checker.stats().neighbour_faults, 2u);
}

TEST_P(FaultPath, TwoCopiesSharingAPageAreEachWatched) {
  const StreamKey a{0, 0xa}, b{0, 0xb};
  checker.stream_created(a, StreamKind::NonBlocking);
  checker.stream_created(b, StreamKind::NonBlocking);
  upload(0, 100, a, 1);
  download(200, 100, b, 2);
  EXPECT_EQ(read_byte(memory + 50), 0x11);  // the upload's source may be read, though the page is closed
  EXPECT_EQ(findings(), 0u);
  write_byte(memory + 250, 1);
  EXPECT_EQ(findings(), 1u);
  write_byte(memory + 50, 1);
  EXPECT_EQ(findings(), 2u);
}

TEST_P(FaultPath, ASynchronizedCopyNoLongerFaults) {
  upload(0, 2 * page_size());
  checker.stream_synchronized({});
  EXPECT_EQ(checker.access_at(addr(0)), PageAccess::ReadWrite);
  const auto before = checker.stats().neighbour_faults;
  write_byte(memory + 5, 9);
  EXPECT_EQ(checker.stats().neighbour_faults, before);
  EXPECT_EQ(findings(), 0u);
}

TEST_P(FaultPath, SeveralThreadsTouchNeighboursWhileCopiesComeAndGo) {
  // Page 0: bytes 0-63 are owned by copies issued and released over and over; four threads write the rest of
  // the page the whole time. Every write must land, and none is a finding.
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int round = 0; round < 2000; ++round)
        for (std::size_t i = 0; i < 8; ++i) write_byte(memory + 1024 + 512 * t + i, static_cast<unsigned char>(round));
    });
  }
  std::thread releaser([&] {
    while (!stop) {
      download(0, 64);
      std::this_thread::yield();
      checker.stream_synchronized({});  // a release while the writers fault on the page
    }
  });
  for (auto& w : writers) w.join();
  stop = true;
  releaser.join();
  for (int t = 0; t < 4; ++t)
    for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(read_byte(memory + 1024 + 512 * t + i), static_cast<unsigned char>(1999));
  EXPECT_EQ(findings(), 0u);
  EXPECT_EQ(checker.access_at(addr(0)), PageAccess::ReadWrite);
}

TEST_P(FaultPath, AReadModifyWriteOfANeighbourLandsAndOfOwnedBytesIsOneOccurrence) {
  download(1000, 100);  // page 0 closed: a read of it faults first, then the same instruction's write
  __atomic_fetch_add(memory + 10, 1, __ATOMIC_RELAXED);  // one instruction that reads and writes (lock add)
  EXPECT_EQ(read_byte(memory + 10), 0x12);
  EXPECT_EQ(findings(), 0u);
  EXPECT_EQ(checker.access_at(addr(0)), PageAccess::None);
  __atomic_fetch_add(memory + 1050, 1, __ATOMIC_RELAXED);
  EXPECT_EQ(checker.stats().occurrences, 1u);  // judged once, as the read that faulted first
  EXPECT_EQ(read_byte(memory + 1060), 0x11);
  EXPECT_EQ(read_byte(memory + 1050), 0x12);
}

// The protection of the page holding `address`, as /proc/self/maps gives it ("r--p", "rw-p"); read with
// open and read only, as it is called inside the signal handler.
char page_rights[5];
void note_rights_of(std::uintptr_t page) {
  static char maps[1 << 16];
  const int fd = ::open("/proc/self/maps", O_RDONLY);
  const ssize_t n = fd < 0 ? -1 : ::read(fd, maps, sizeof maps - 1);
  if (fd >= 0) ::close(fd);
  maps[n > 0 ? n : 0] = '\0';
  for (char* line = maps; *line != '\0';) {
    char* end = std::strchr(line, '\n');
    const unsigned long low = std::strtoul(line, nullptr, 16), high = std::strtoul(std::strchr(line, '-') + 1, nullptr, 16);
    if (page >= low && page < high) std::memcpy(page_rights, std::strchr(line, ' ') + 1, 4);
    if (end == nullptr) break;
    line = end + 1;
  }
}

TEST_P(FaultPath, AStepOpensThePageOnlyAsFarAsItsAccessNeeds) {
  // mprotect opens a page for every thread: while one thread's read of a neighbour is stepped, other threads
  // may read the page but a write of theirs to a copy's bytes still faults and is judged.
  if (GetParam() == ProtectionBackend::Keys) GTEST_SKIP() << "a key opens for the stepping thread, not the page";
  FaultHandler::observe_steps(note_rights_of);
  download(1000, 100);
  (void)read_byte(memory + 10);
  EXPECT_STREQ(std::string(page_rights, 4).c_str(), "r--p");
  write_byte(memory + 20, 1);  // a write of a neighbour needs the page writable for its one instruction
  EXPECT_STREQ(std::string(page_rights, 4).c_str(), "rw-p");
  FaultHandler::observe_steps(nullptr);
  EXPECT_EQ(findings(), 0u);
  EXPECT_EQ(checker.access_at(addr(0)), PageAccess::None);
}

// While one thread's access to a neighbour is stepped, another thread writes a copy's bytes in the same page,
// inside the step (the step observer waits for it). A key opens for the stepping thread alone, so the other
// write faults and is found, in a read step and in a write step. mprotect opens the page for every thread: for a
// read step only as far as reading, so that write is found too; a write step opens it for writing, and the other
// thread's write lands unseen (the window checker/README names).
struct OtherThreadInsideTheStep {
  std::atomic<unsigned char*> target{nullptr};
  std::atomic<bool> written{false};
} inside_step;
void let_the_other_thread_write(std::uintptr_t) {
  if (inside_step.target.load() == nullptr) return;
  inside_step.written = false;
  unsigned char* target = inside_step.target.exchange(nullptr);
  std::thread([target] {
    write_byte(target, 0x5a);
    inside_step.written = true;
  }).detach();
  for (int waited_ms = 0; !inside_step.written && waited_ms < 5000; ++waited_ms) ::usleep(1000);
}

TEST_P(FaultPath, AnotherThreadsWriteToOwnedBytesWhileANeighbourIsSteppedIsFound) {
  checker.set_every_occurrence(true);
  FaultHandler::observe_steps(let_the_other_thread_write);
  download(1000, 100);
  inside_step.target = memory + 1050;
  EXPECT_EQ(read_byte(memory + 10), 0x11);  // a read step
  ASSERT_TRUE(inside_step.written);
  EXPECT_EQ(findings(), 1u);
  download(2000, 100);  // a reported copy is disarmed: a new one
  inside_step.target = memory + 2050;
  write_byte(memory + 20, 1);  // a write step
  ASSERT_TRUE(inside_step.written);
  FaultHandler::observe_steps(nullptr);
  EXPECT_EQ(findings(), GetParam() == ProtectionBackend::Keys ? 2u : 1u);
  checker.stream_synchronized({});
  EXPECT_EQ(read_byte(memory + 1050), 0x5a);  // each write landed, found or not
  EXPECT_EQ(read_byte(memory + 2050), 0x5a);
}

// A string instruction that reads a neighbour and writes a copy's byte in the same page: the write is a second
// fault of the stepped instruction, at another address, and is judged.
TEST_P(FaultPath, OneInstructionThatReadsANeighbourAndWritesOwnedBytesIsFound) {
  download(1000, 100);
  unsigned char* from = memory + 10;
  unsigned char* to = memory + 1050;
  std::size_t count = 1;
  asm volatile("rep movsb" : "+D"(to), "+S"(from), "+c"(count) : : "memory");
  EXPECT_EQ(findings(), 1u);
  EXPECT_EQ(read_byte(memory + 1050), 0x11);
}

TEST_P(FaultPath, AThreadPollingOneByteBesideCopiesThatComeAndGoRunsOn) {
  // A fault that finds its page opened since (a copy released meanwhile) runs the instruction again, as often
  // as the checker's protections keep changing; a reader of one byte must never be taken for a foreign fault.
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    while (!stop) (void)read_byte(memory + 10);
  });
  constexpr int kWrites = 3000;
  for (int i = 0; i < kWrites; ++i) {
    download(1000, 100);  // a copy is reported at its first conflicting access: a new one each time
    write_byte(memory + 1050, static_cast<unsigned char>(i));
  }
  stop = true;
  reader.join();
  EXPECT_EQ(checker.stats().occurrences, static_cast<std::uint64_t>(kWrites));
  EXPECT_EQ(read_byte(memory + 1050), static_cast<unsigned char>(kWrites - 1));
}

TEST_P(FaultPath, AFaultThatIsNotTheCheckersEndsTheProcessWithItsOwnSignal) {
  EXPECT_EXIT(
      {
        void* p = ::mmap(nullptr, page_size(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        write_byte(static_cast<unsigned char*>(p), 1);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
}

using HandlerAtCopy = FaultHandler::HandlerAtCopy;
bool program_handlers_behind_in_the_shim() { return shim::preloaded_claimed_signals().preloaded(); }

void exit_3(int) { _exit(3); }

// A fault on a page of its own that no copy holds: the program's, never the checker's.
void fault_of_the_programs_own() {
  void* p = ::mmap(nullptr, page_size(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  write_byte(static_cast<unsigned char*>(p), 1);
}

// A crash reporter, a runtime or Python's faulthandler installs its handler at start, before any copy.
TEST_P(FaultPath, AHandlerSetWhileNothingIsHeldHidesNothingAndGoesBehindTheCheckers) {
  EXPECT_TRUE(FaultHandler::ensure_installed());  // the kernel asked: the window of the next copy starts now
  struct sigaction mine{}, old{};
  mine.sa_handler = &exit_3;
  ASSERT_EQ(sigaction(SIGSEGV, &mine, &old), 0);
  // Where the shim keeps the program's handlers it never reached the kernel; elsewhere it is found and put behind,
  // with nothing missed, since no page was held while it was in front.
  EXPECT_EQ(FaultHandler::ensure_installed_at_copy(), program_handlers_behind_in_the_shim()
                                                          ? HandlerAtCopy::InFront
                                                          : HandlerAtCopy::ReplacedWhileNothingWasHeld);
  EXPECT_EQ(FaultHandler::ensure_installed_at_copy(), HandlerAtCopy::InFront);
  EXPECT_TRUE(FaultHandler::ensure_installed());
  upload(0, 64);
  write_byte(memory + 1, 1);  // the checker's fault: the program's handler does not see it
  EXPECT_EQ(findings(), 1u);
  EXPECT_EXIT(fault_of_the_programs_own(), ::testing::ExitedWithCode(3), "");
}

// The program asks, and is answered as the kernel would have answered it: its own handler, not the checker's.
TEST_P(FaultPath, TheProgramIsToldItsOwnHandler) {
  if (!program_handlers_behind_in_the_shim()) GTEST_SKIP() << "the thread shim is not preloaded";
  struct sigaction mine{}, asked{}, old{};
  mine.sa_handler = &exit_3;
  mine.sa_flags = SA_RESTART;
  sigemptyset(&mine.sa_mask);
  sigaddset(&mine.sa_mask, SIGUSR1);
  ASSERT_EQ(sigaction(SIGSEGV, &mine, nullptr), 0);
  ASSERT_EQ(sigaction(SIGSEGV, nullptr, &asked), 0);
  EXPECT_EQ(asked.sa_handler, &exit_3);
  EXPECT_EQ(asked.sa_flags & SA_RESTART, SA_RESTART);
  EXPECT_EQ(sigismember(&asked.sa_mask, SIGUSR1), 1);
  struct sigaction fallback{};
  fallback.sa_handler = SIG_DFL;
  ASSERT_EQ(sigaction(SIGSEGV, &fallback, &old), 0);  // and the one before, when it sets another
  EXPECT_EQ(old.sa_handler, &exit_3);
  EXPECT_EQ(signal(SIGSEGV, &exit_3), SIG_DFL);
  EXPECT_EQ(signal(SIGSEGV, SIG_DFL), &exit_3);
  EXPECT_TRUE(FaultHandler::ensure_installed());  // the kernel's handler was the checker's all along
}

// A copy holds pages while the program installs its handler: under the shim the handler goes behind at once and
// the race is still found; elsewhere the copy after it finds it was in front while pages were held.
TEST_P(FaultPath, AHandlerSetWhileACopyIsHeld) {
  EXPECT_TRUE(FaultHandler::ensure_installed());
  upload(0, 64);
  struct sigaction mine{};
  mine.sa_handler = &exit_3;
  ASSERT_EQ(sigaction(SIGSEGV, &mine, nullptr), 0);
  if (program_handlers_behind_in_the_shim()) {
    EXPECT_EQ(FaultHandler::ensure_installed_at_copy(), HandlerAtCopy::InFront);
    write_byte(memory + 1, 1);
    EXPECT_EQ(findings(), 1u);
  } else {
    EXPECT_EQ(FaultHandler::ensure_installed_at_copy(), HandlerAtCopy::ReplacedWhilePagesWereHeld);
  }
  EXPECT_EXIT(fault_of_the_programs_own(), ::testing::ExitedWithCode(3), "");
}

std::atomic<int> resethand_runs{0};
void opens_its_page(int, siginfo_t* info, void*) {
  resethand_runs.fetch_add(1);
  ::mprotect(reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(info->si_addr) & ~(page_size() - 1)),
             page_size(), PROT_READ | PROT_WRITE);
}

// SA_RESETHAND: the program's handler runs for one signal; the next meets the default action, as from the kernel.
TEST_P(FaultPath, AProgramsOneShotHandlerRunsOnce) {
  EXPECT_EXIT(
      {
        struct sigaction once{};
        once.sa_sigaction = &opens_its_page;
        once.sa_flags = SA_SIGINFO | SA_RESETHAND;
        sigaction(SIGSEGV, &once, nullptr);
        FaultHandler::ensure_installed();
        fault_of_the_programs_own();  // the handler opens the page, and the write goes through
        if (resethand_runs.load() == 1) fault_of_the_programs_own();  // the default action now
        _exit(4);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
}

std::atomic<bool> own_signal_blocked{false}, mask_blocked{false};
void notes_its_mask(int, siginfo_t* info, void*) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, nullptr, &now);
  own_signal_blocked = sigismember(&now, SIGSEGV) == 1;
  mask_blocked = sigismember(&now, SIGUSR1) == 1;
  ::mprotect(reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(info->si_addr) & ~(page_size() - 1)),
             page_size(), PROT_READ | PROT_WRITE);
}

// As the kernel delivers a signal to a handler: its mask and the signal itself blocked while it runs, and neither
// after it returned.
TEST_P(FaultPath, AProgramsHandlerRunsWithItsMaskBlocked) {
  struct sigaction mine{};
  mine.sa_sigaction = &notes_its_mask;
  mine.sa_flags = SA_SIGINFO;
  sigemptyset(&mine.sa_mask);
  sigaddset(&mine.sa_mask, SIGUSR1);
  ASSERT_EQ(sigaction(SIGSEGV, &mine, nullptr), 0);
  FaultHandler::ensure_installed();
  fault_of_the_programs_own();
  EXPECT_TRUE(own_signal_blocked.load());
  EXPECT_TRUE(mask_blocked.load());
  sigset_t after;
  pthread_sigmask(SIG_BLOCK, nullptr, &after);
  EXPECT_EQ(sigismember(&after, SIGSEGV), 0);
  EXPECT_EQ(sigismember(&after, SIGUSR1), 0);
}

// A crash handler that sets the default action back and raises the signal again ends the process with it; so does
// a SIGSEGV the program raises itself with no handler of its own.
void reports_and_raises_again(int) {
  (void)!::write(STDERR_FILENO, "the program's crash handler ran\n", 32);
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
}
TEST_P(FaultPath, AProgramsCrashHandlerEndsTheProcessWithTheSameSignal) {
  EXPECT_EXIT(
      {
        signal(SIGSEGV, &reports_and_raises_again);
        FaultHandler::ensure_installed();
        fault_of_the_programs_own();
        _exit(4);
      },
      ::testing::KilledBySignal(SIGSEGV), "the program's crash handler ran");
  EXPECT_EXIT(
      {
        signal(SIGSEGV, SIG_DFL);
        FaultHandler::ensure_installed();
        raise(SIGSEGV);
        _exit(4);
      },
      ::testing::KilledBySignal(SIGSEGV), "");
}

// Replaces the SIGSEGV disposition by the system call itself, as no C library wrapper sees it.
void ignore_segv_around_the_c_library() {
  struct KernelSigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    std::uint64_t mask;
  } ignore{SIG_IGN, 0, nullptr, 0};
  ASSERT_EQ(::syscall(SYS_rt_sigaction, SIGSEGV, &ignore, nullptr, sizeof ignore.mask), 0);
}

TEST_P(FaultPath, AHandlerReplacedAroundTheCLibraryIsFoundWithinKAskKernelEveryCopies) {
  upload(0, 64);  // held while the handler is replaced: accesses may have been missed
  ignore_segv_around_the_c_library();
  std::uint64_t copies = 0;
  HandlerAtCopy noticed = HandlerAtCopy::InFront;
  while (noticed == HandlerAtCopy::InFront && copies < FaultHandler::kAskKernelEvery) {
    noticed = FaultHandler::ensure_installed_at_copy();
    ++copies;
  }
  EXPECT_EQ(noticed, HandlerAtCopy::ReplacedWhilePagesWereHeld) << "not noticed in " << copies << " copies";
  EXPECT_TRUE(FaultHandler::ensure_installed());
  if (shim::preloaded_signal_hook_setter() == nullptr) {
    EXPECT_EQ(copies, 1u);  // without the thread shim every copy asks
    return;
  }
  // The copy that found it asked the kernel on its own: the next kAskKernelEvery - 1 do not. A handler the
  // program sets through the C library now is kept behind the checker's, and the kernel is not asked.
  struct sigaction mine{};
  mine.sa_handler = &exit_3;
  sigaction(SIGSEGV, &mine, nullptr);
  EXPECT_EQ(FaultHandler::ensure_installed_at_copy(), HandlerAtCopy::InFront);
  ignore_segv_around_the_c_library();
  EXPECT_EQ(FaultHandler::ensure_installed_at_copy(), HandlerAtCopy::InFront);  // not told, not due: not asked
  EXPECT_FALSE(FaultHandler::ensure_installed());  // the kernel says otherwise, and it is put back
  EXPECT_TRUE(FaultHandler::ensure_installed());
}

INSTANTIATE_TEST_SUITE_P(Backends, FaultPath, ::testing::Values(ProtectionBackend::Mprotect, ProtectionBackend::Keys),
                         [](const ::testing::TestParamInfo<ProtectionBackend>& backend) {
                           return backend.param == ProtectionBackend::Keys ? "keys" : "mprotect";
                         });

TEST(PythonStack, CPythonsTracebackLinesBecomeFrames) {
  const auto frames = parse_python_stack(
      "Stack (most recent call first):\n  File \"/tmp/train.py\", line 12 in step\n  File \"<string>\", line 1 in <module>\n");
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].file, "/tmp/train.py");
  EXPECT_EQ(frames[0].line, 12);
  EXPECT_EQ(frames[0].function, "step");
  EXPECT_EQ(frames[1].function, "<module>");
}

TEST(PythonStack, OutsidePythonTheStackIsEmpty) {
  find_python();
  PythonStackText text;
  capture_python_stack(text, ThreadWithoutPython::MainThreadWhileWaiting);
  EXPECT_EQ(text.length, 0);
}

}  // namespace
}  // namespace hazardlab::check
