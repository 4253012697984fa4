// The fault path's protection-key decisions on any machine, on played signals: the CI machines have no keys, so
// the faulting thread's rights live in a played XSAVE area (the stand-in for its PKRU, as the kernel saves it
// in the signal frame and restores it at the handler's return), and the key numbers are named, not allocated.
// What the real keys do on the GPU machines, test_fault_path's `keys` half shows. A process of its own: the
// played key numbers must not meet keys really allocated.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "checker/fault/fault_handler.hpp"
#include "checker/fault/protection_keys.hpp"

namespace hazardlab::check {
namespace {

constexpr int kNoWrites = 1, kNoAccess = 2;
constexpr std::size_t kPkruOffset = 2688;  // what CPUID 0xD.9 gave on the GPU machines
constexpr std::uint32_t kUsualRights = (1u << (2 * kNoWrites + 1)) | (1u << (2 * kNoAccess));  // WD 1, AD 2

// A thread's signal frame: its registers and its XSAVE area, with the PKRU the kernel saved.
struct PlayedFrame {
  alignas(64) std::array<std::byte, 4096> xsave{};
  ucontext_t uc{};
  siginfo_t info{};
  explicit PlayedFrame(std::uint32_t pkru) {
    const std::uint32_t magic = 0x46505853, size = static_cast<std::uint32_t>(xsave.size());
    std::memcpy(xsave.data() + 464, &magic, sizeof magic);  // sw_reserved: an XSAVE area follows
    std::memcpy(xsave.data() + 480, &size, sizeof size);
    EXPECT_TRUE(write_saved_pkru(xsave.data(), xsave.size(), kPkruOffset, pkru));
    uc.uc_mcontext.fpregs = reinterpret_cast<fpregset_t>(xsave.data());
  }
  PageAccess rights(int key) const { return rights_in(read_saved_pkru(xsave.data(), xsave.size(), kPkruOffset, 0), key); }
  bool stepping() const { return (uc.uc_mcontext.gregs[REG_EFL] & 0x100) != 0; }
  void fault(std::uintptr_t address, bool write, int key) {
    info = siginfo_t{};
    info.si_signo = SIGSEGV;
    info.si_code = SEGV_PKUERR;
    info.si_addr = reinterpret_cast<void*>(address);
    info.si_pkey = static_cast<decltype(info.si_pkey)>(key);
    uc.uc_mcontext.gregs[REG_ERR] = write ? 0x2 | 0x20 : 0x20;  // W, PK
    FaultHandler::play_fault(&info, &uc);
  }
  void trap() {
    info = siginfo_t{};
    info.si_signo = SIGTRAP;
    FaultHandler::play_trap(&info, &uc);
  }
};

struct KeyFaultPath : ::testing::Test {
  HostPageProtector protector;
  Checker checker{protector};
  alignas(65536) static inline unsigned char memory[4 * 65536];
  std::mutex found_mutex;
  std::vector<Finding> found;

  void SetUp() override {
    ASSERT_EQ(protector.play_keys(kNoWrites, kNoAccess, kPkruOffset).backend, ProtectionBackend::Keys);
    checker.pinned_allocated(addr(0), sizeof memory, PinnedKind::Registered);
    FaultHandler::install(checker, [this](std::vector<Finding>&& f, const std::vector<std::uintptr_t>&,
                                          const PythonStackText&) {
      std::lock_guard lock(found_mutex);
      for (Finding& x : f) found.push_back(std::move(x));
    });
  }
  void TearDown() override { checker.release_everything(); }
  std::uintptr_t addr(std::size_t offset) const { return reinterpret_cast<std::uintptr_t>(memory) + offset; }
  void upload(std::size_t offset, std::size_t bytes) {
    checker.copy_async(AsyncCopy{"cuMemcpyHtoDAsync_v2", {}, {MemoryKind::PinnedHost, HostFootprint::linear(addr(offset), bytes)},
                                 {MemoryKind::Device, {}}, bytes, 1});
  }
  void download(std::size_t offset, std::size_t bytes) {
    checker.copy_async(AsyncCopy{"cuMemcpyDtoHAsync_v2", {}, {MemoryKind::Device, {}},
                                 {MemoryKind::PinnedHost, HostFootprint::linear(addr(offset), bytes)}, bytes, 2});
  }
  std::size_t findings() {
    std::lock_guard lock(found_mutex);
    return found.size();
  }
};

TEST_F(KeyFaultPath, AThreadWithTheNoWritesKeyClosedReadsASourceAfterOneFaultAndNoFinding) {
  upload(100, 1000);
  PlayedFrame thread(kUsualRights | (1u << (2 * kNoWrites)));  // a thread started before the keys: closed to reads
  thread.fault(addr(200), false, kNoWrites);
  EXPECT_EQ(thread.rights(kNoWrites), PageAccess::ReadOnly) << "the usual rights, for good";
  EXPECT_EQ(thread.rights(kNoAccess), PageAccess::None);
  EXPECT_FALSE(thread.stepping());
  EXPECT_EQ(findings(), 0u);
}

TEST_F(KeyFaultPath, AWriteBesideASourceIsLetThroughForThisThreadAloneForOneInstruction) {
  upload(100, 1000);
  PlayedFrame thread(kUsualRights), other(kUsualRights);
  thread.fault(addr(2000), true, kNoWrites);  // the page of the source, not its bytes
  EXPECT_EQ(findings(), 0u);
  EXPECT_EQ(thread.rights(kNoWrites), PageAccess::ReadWrite);
  EXPECT_TRUE(thread.stepping());
  EXPECT_EQ(other.rights(kNoWrites), PageAccess::ReadOnly) << "another thread's rights are its own";
  thread.trap();
  EXPECT_EQ(thread.rights(kNoWrites), PageAccess::ReadOnly) << "closed again after the one instruction";
  EXPECT_FALSE(thread.stepping());
}

TEST_F(KeyFaultPath, AWriteToASourceIsFoundAndTheReportedCopyNoLongerHoldsItsPage) {
  upload(100, 1000);
  PlayedFrame thread(kUsualRights);
  thread.fault(addr(300), true, kNoWrites);
  ASSERT_EQ(findings(), 1u);
  EXPECT_EQ(found[0].kind, FindingKind::HostWroteCopySource);
  EXPECT_EQ(checker.access_at(addr(300)), PageAccess::ReadWrite) << "disarmed: the program runs on as it would";
  EXPECT_FALSE(thread.stepping()) << "the page carries no held key now: the instruction simply runs again";
  EXPECT_EQ(thread.rights(kNoWrites), PageAccess::ReadOnly);
}

TEST_F(KeyFaultPath, ANeighbourOfADestinationIsReadThroughItsOwnKeyOnlyAsFarAsReading) {
  download(1000, 100);
  PlayedFrame thread(kUsualRights);
  thread.fault(addr(10), false, kNoAccess);
  EXPECT_EQ(findings(), 0u);
  EXPECT_EQ(thread.rights(kNoAccess), PageAccess::ReadOnly);
  EXPECT_EQ(thread.rights(kNoWrites), PageAccess::ReadOnly) << "the other key as it was";
  // The same instruction writes the byte it read (a read-modify-write): open the rest of the way, not judged again.
  thread.fault(addr(10), true, kNoAccess);
  EXPECT_EQ(thread.rights(kNoAccess), PageAccess::ReadWrite);
  EXPECT_EQ(findings(), 0u);
  thread.trap();
  EXPECT_EQ(thread.rights(kNoAccess), PageAccess::None);
}

TEST_F(KeyFaultPath, AStringInstructionsWriteToOwnedBytesAfterReadingANeighbourIsFound) {
  download(1000, 100);
  PlayedFrame thread(kUsualRights);
  thread.fault(addr(10), false, kNoAccess);
  thread.fault(addr(1050), true, kNoAccess);  // the same instruction, another byte of the page: judged
  EXPECT_EQ(findings(), 1u);
  thread.trap();
  EXPECT_EQ(thread.rights(kNoAccess), PageAccess::None);
}

TEST_F(KeyFaultPath, AKeyFaultNamingKeyZeroOnAReleasedPageIsRunAgainNotTakenForTheProgramsOwn) {
  // The kernel names the key the mapping carries when it looks: 0 for a page released after the access faulted.
  download(1000, 100);
  checker.stream_synchronized({});
  PlayedFrame thread(kUsualRights);
  thread.fault(addr(1050), true, 0);
  EXPECT_TRUE(FaultHandler::ensure_installed()) << "the fault was not passed on to the default action";
  EXPECT_EQ(findings(), 0u);
  EXPECT_FALSE(thread.stepping());
}

// With range keys (the thread shim preloaded): each pinned range carries a key of its own, which a copy closes
// in its issuing thread's own rights while no other thread holds it open.
constexpr int kRangeKey = 3;
constexpr std::uint32_t kStartRights = kUsualRights | (1u << (2 * kRangeKey)) | (1u << (2 * (kRangeKey + 1)));

struct RangeKeyFaultPath : KeyFaultPath {
  void SetUp() override {
    ASSERT_EQ(protector.play_keys(kNoWrites, kNoAccess, kPkruOffset, {kRangeKey, kRangeKey + 1}).backend,
              ProtectionBackend::Keys);
    HostPageProtector::thread_started();  // this thread, as the shim's hook starts every thread
    checker.pinned_allocated(addr(0), sizeof memory, PinnedKind::HostAlloc);
    FaultHandler::install(checker, [this](std::vector<Finding>&& f, const std::vector<std::uintptr_t>&,
                                          const PythonStackText&) {
      std::lock_guard lock(found_mutex);
      for (Finding& x : f) found.push_back(std::move(x));
    });
  }
  // Runs `body` on a thread of its own, started as the shim starts threads.
  template <class Body>
  void on_another_thread(Body body) {
    std::thread([&] {
      HostPageProtector::thread_started();
      body();
      HostPageProtector::thread_ended();
    }).join();
  }
  static PageAccess own_rights(int key) { return rights_in(HostPageProtector::played_thread_pkru(), key); }
};

TEST_F(RangeKeyFaultPath, ACopyClosesItsRangeKeyInTheIssuingThreadsOwnRightsAndItsReleaseOpensIt) {
  EXPECT_EQ(own_rights(kRangeKey), PageAccess::ReadWrite) << "the thread that pinned the range has its key open";
  EXPECT_EQ(own_rights(kRangeKey + 1), PageAccess::None) << "a thread starts with every range key closed";
  upload(100, 1000);
  EXPECT_EQ(own_rights(kRangeKey), PageAccess::ReadOnly) << "the source may be read, not written";
  checker.stream_synchronized({});
  EXPECT_EQ(own_rights(kRangeKey), PageAccess::ReadWrite);
  download(100, 1000);
  EXPECT_EQ(own_rights(kRangeKey), PageAccess::None);
}

TEST_F(RangeKeyFaultPath, AnotherThreadsWriteToTheSourceIsFoundAndItsNeighbourWritesRunOn) {
  upload(100, 1000);
  on_another_thread([&] {
    PlayedFrame thread(kStartRights);
    thread.fault(addr(5 * 4096), true, kRangeKey);  // a page of the range that no copy holds
    EXPECT_EQ(findings(), 0u);
    EXPECT_FALSE(thread.stepping());
    EXPECT_EQ(thread.rights(kRangeKey), PageAccess::ReadWrite) << "opened for good: the held page moved instead";
    thread.fault(addr(300), true, kNoWrites);  // the held page, now on the strict no-writes key
    EXPECT_EQ(findings(), 1u);
  });
  ASSERT_EQ(findings(), 1u);
  EXPECT_EQ(found[0].kind, FindingKind::HostWroteCopySource);
}

TEST_F(RangeKeyFaultPath, AWriteToAHeldPageUnderItsRangeKeyIsFoundAndTheReportedCopyLetsItGo) {
  upload(100, 1000);
  on_another_thread([&] {
    PlayedFrame thread(kStartRights);
    thread.fault(addr(300), true, kRangeKey);
    EXPECT_EQ(findings(), 1u);
    EXPECT_FALSE(thread.stepping()) << "disarmed: the page is held no more, and the key opens for good";
    EXPECT_EQ(thread.rights(kRangeKey), PageAccess::ReadWrite);
  });
}

TEST_F(RangeKeyFaultPath, AThreadThatOpenedTheKeyMakesTheNextCopyMoveItsPagesAndStillFaults) {
  on_another_thread([&] {
    PlayedFrame thread(kStartRights);
    thread.fault(addr(8 * 4096), false, kRangeKey);
    EXPECT_EQ(thread.rights(kRangeKey), PageAccess::ReadWrite);
    // The copy is issued while this thread holds the key open: only a signal could close it here.
    std::thread([&] { upload(100, 1000); }).join();
    thread.fault(addr(300), true, kNoWrites);
    EXPECT_EQ(findings(), 1u);
  });
}

TEST_F(RangeKeyFaultPath, ASystemCallOpensItsBuffersRangeKeyFirstAndTheHeldPagesStillFault) {
  upload(100, 1000);
  on_another_thread([&] {
    EXPECT_EQ(own_rights(kRangeKey), PageAccess::None);
    EXPECT_TRUE(HostPageProtector::kernel_access(reinterpret_cast<void*>(addr(5 * 4096)), 8192, true));  // read(2)
    EXPECT_EQ(own_rights(kRangeKey), PageAccess::ReadWrite) << "the kernel would have failed the call with EFAULT";
    EXPECT_EQ(findings(), 0u);
    PlayedFrame thread(HostPageProtector::played_thread_pkru());
    thread.fault(addr(300), true, kNoWrites);  // the held page moved to the strict key
    EXPECT_EQ(findings(), 1u);
  });
  HostPageProtector::kernel_access(reinterpret_cast<void*>(addr(6 * 4096)), 100, false);  // write(2) from them
  EXPECT_EQ(own_rights(kRangeKey), PageAccess::ReadWrite) << "the held pages carry the strict key now";
}

TEST_F(RangeKeyFaultPath, AForkedChildOpensEveryRangeKeyInItsOneThread) {
  download(100, 1000);
  EXPECT_EQ(own_rights(kRangeKey), PageAccess::None);
  protector.forked_child();
  checker.release_everything();
  EXPECT_EQ(own_rights(kRangeKey), PageAccess::ReadWrite);
  EXPECT_EQ(own_rights(kRangeKey + 1), PageAccess::ReadWrite);
}

}  // namespace
}  // namespace hazardlab::check
