// The checker's core on the CPU: page holds, the online order, which bytes a copy owns and when it lets
// them go, and the findings, with page protection recorded instead of applied.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>

#include "checker/core/check_settings.hpp"
#include "checker/core/checker.hpp"
#include "hazardlab/setting_source.hpp"

namespace hazardlab::check {
namespace {

using conformance::Deviation;

struct RecordedProtection : PageProtector {
  std::map<std::uintptr_t, PageAccess> pages;  // the access of every page ever changed
  void apply(const PageChange& c) override {
    for (std::uintptr_t p = c.begin; p < c.end; p += page_size()) pages[p] = c.access;
  }
  PageAccess at(std::uintptr_t address) const {
    auto it = pages.find(page_floor(address));
    return it == pages.end() ? PageAccess::ReadWrite : it->second;
  }
};

const std::uintptr_t kBase = 0x7f0000000000;
const std::size_t kPage = page_size();

// A program's world: one pinned allocation of 16 pages, device memory elsewhere.
struct World {
  RecordedProtection protection;
  Checker checker{protection};
  World() { checker.pinned_allocated(kBase, 16 * kPage, PinnedKind::HostAlloc); }
  AsyncCopy upload(std::uintptr_t from, std::size_t bytes, StreamKey stream = {}, SiteId site = 1) {
    return AsyncCopy{"cuMemcpyHtoDAsync_v2", stream, {MemoryKind::PinnedHost, HostFootprint::linear(from, bytes)},
                     {MemoryKind::Device, {}}, bytes, site};
  }
  AsyncCopy download(std::uintptr_t to, std::size_t bytes, StreamKey stream = {}, SiteId site = 2) {
    return AsyncCopy{"cuMemcpyDtoHAsync_v2", stream, {MemoryKind::Device, {}},
                     {MemoryKind::PinnedHost, HostFootprint::linear(to, bytes)}, bytes, site};
  }
  Checker::FaultOutcome touch(std::uintptr_t a, bool write, SiteId site = 100) {
    return checker.host_access(a, write, std::nullopt, site, 1);
  }
};

TEST(PageHolds, CountsEveryHoldAndReportsOnlyChangedPages) {
  PageHolds holds;
  EXPECT_EQ(holds.add(kBase + 10, kBase + kPage + 10, Hold::NoWrites),
            (std::vector<PageChange>{{kBase, kBase + 2 * kPage, PageAccess::ReadOnly}}));
  // A second hold on the second page changes only what it makes stricter.
  EXPECT_EQ(holds.add(kBase + kPage, kBase + 2 * kPage, Hold::NoAccess),
            (std::vector<PageChange>{{kBase + kPage, kBase + 2 * kPage, PageAccess::None}}));
  EXPECT_EQ(holds.remove(kBase + 10, kBase + kPage + 10, Hold::NoWrites),
            (std::vector<PageChange>{{kBase, kBase + kPage, PageAccess::ReadWrite}}));
  EXPECT_EQ(holds.access_at(kBase + kPage + 5), PageAccess::None);
  EXPECT_EQ(holds.remove(kBase + kPage, kBase + 2 * kPage, Hold::NoAccess),
            (std::vector<PageChange>{{kBase + kPage, kBase + 2 * kPage, PageAccess::ReadWrite}}));
  EXPECT_TRUE(holds.empty());
}

RC_GTEST_PROP(PageHolds, AgreeWithACountPerPage, ()) {
  PageHolds holds;
  std::map<std::uintptr_t, std::pair<int, int>> counts;  // page -> no-writes, no-access
  RecordedProtection applied;
  std::vector<std::tuple<std::uintptr_t, std::uintptr_t, Hold>> taken;
  const int steps = *rc::gen::inRange(1, 60);
  for (int i = 0; i < steps; ++i) {
    const bool release = !taken.empty() && *rc::gen::arbitrary<bool>();
    if (release) {
      const std::size_t k = *rc::gen::inRange<std::size_t>(0, taken.size());
      const auto [b, e, h] = taken[k];
      taken.erase(taken.begin() + static_cast<long>(k));
      for (const PageChange& c : holds.remove(b, e, h)) applied.apply(c);
      for (std::uintptr_t p = page_floor(b); p < page_ceil(e); p += kPage)
        (h == Hold::NoWrites ? counts[p].first : counts[p].second)--;
    } else {
      const std::uintptr_t b = kBase + *rc::gen::inRange<std::size_t>(0, 8 * kPage);
      const std::uintptr_t e = b + *rc::gen::inRange<std::size_t>(1, 4 * kPage);
      const Hold h = *rc::gen::arbitrary<bool>() ? Hold::NoWrites : Hold::NoAccess;
      taken.emplace_back(b, e, h);
      for (const PageChange& c : holds.add(b, e, h)) applied.apply(c);
      for (std::uintptr_t p = page_floor(b); p < page_ceil(e); p += kPage)
        (h == Hold::NoWrites ? counts[p].first : counts[p].second)++;
    }
    for (std::uintptr_t p = kBase; p < kBase + 13 * kPage; p += kPage) {
      const auto [w, a] = counts[p];
      const PageAccess want = a > 0 ? PageAccess::None : w > 0 ? PageAccess::ReadOnly : PageAccess::ReadWrite;
      RC_ASSERT(holds.access_at(p + 7) == want);
      RC_ASSERT(applied.at(p) == want);  // the changes reported are exactly what the pages need
    }
  }
}

TEST(Checker, AWriteToAnUploadsSourceBeforeSynchronizingIsAFinding) {
  World w;
  w.checker.copy_async(w.upload(kBase + 100, 5000));
  EXPECT_EQ(w.protection.at(kBase), PageAccess::ReadOnly);
  EXPECT_EQ(w.protection.at(kBase + kPage), PageAccess::ReadOnly);
  // Reading the source is allowed; so is writing a neighbour outside the copy's bytes.
  EXPECT_TRUE(w.touch(kBase + 200, false).findings.empty());
  const auto neighbour = w.touch(kBase + 50, true);
  EXPECT_TRUE(neighbour.ours);
  EXPECT_TRUE(neighbour.step);
  EXPECT_TRUE(neighbour.findings.empty());
  const auto hit = w.touch(kBase + 300, true);
  ASSERT_EQ(hit.findings.size(), 1u);
  const Finding& f = hit.findings[0];
  EXPECT_EQ(f.kind, FindingKind::HostWroteCopySource);
  EXPECT_EQ(f.offset, 200u);
  EXPECT_EQ(f.hazard(), "h2d-pinned-mutate");
  EXPECT_TRUE(f.relies_on.empty());
  // Reported once: the copy lets its pages go so the program runs on as it would.
  EXPECT_FALSE(hit.step);
  EXPECT_EQ(w.protection.at(kBase), PageAccess::ReadWrite);
}

TEST(Checker, ADownloadsDestinationMayNotBeReadOrWrittenUntilTheStreamIsSynchronized) {
  World w;
  const StreamKey s{0, 0xabc};
  w.checker.stream_created(s, StreamKind::NonBlocking);
  w.checker.copy_async(w.download(kBase + kPage, kPage, s));
  EXPECT_EQ(w.protection.at(kBase + kPage), PageAccess::None);
  const auto read = w.touch(kBase + kPage + 8, false);
  ASSERT_EQ(read.findings.size(), 1u);
  EXPECT_EQ(read.findings[0].kind, FindingKind::HostReadCopyDestination);
  EXPECT_EQ(read.findings[0].hazard(), "d2h-pinned-read-early");

  w.checker.copy_async(w.download(kBase + kPage, kPage, s));
  w.checker.stream_synchronized(StreamKey{0, 0});  // the legacy stream does not order a non-blocking one
  EXPECT_EQ(w.protection.at(kBase + kPage), PageAccess::None);
  w.checker.stream_synchronized(s);
  EXPECT_EQ(w.protection.at(kBase + kPage), PageAccess::ReadWrite);
  EXPECT_FALSE(w.touch(kBase + kPage + 8, true).ours);
}

// `--kernels-own-mapped-memory`: a kernel handed pointers into pinned memory holds the bytes they point to, as a
// copy holds its host end: what it reads against host writes, what it may write against any host access, until
// the host knows it finished. The finding names the kernel, not a copy.
TEST(Checker, AKernelHandedMappedPinnedMemoryOwnsWhatItsPointersPointTo) {
  World w;
  const StreamKey s{0, 0x77};
  w.checker.stream_created(s, StreamKind::NonBlocking);
  w.checker.kernel_holds(KernelHold{"scale", s, HostFootprint::linear(kBase, 1), KernelUse::Reads, 5});
  w.checker.kernel_holds(KernelHold{"scale", s, HostFootprint::linear(kBase + kPage, 1), KernelUse::MayWrite, 5});
  EXPECT_TRUE(w.touch(kBase, false).findings.empty());  // the host may read what the kernel reads
  const auto rewrote = w.touch(kBase, true);
  ASSERT_EQ(rewrote.findings.size(), 1u);
  EXPECT_EQ(rewrote.findings[0].kind, FindingKind::HostWroteCopySource);
  const auto read = w.touch(kBase + kPage, false, 101);
  ASSERT_EQ(read.findings.size(), 1u);
  const Finding& f = read.findings[0];
  EXPECT_EQ(f.kind, FindingKind::HostReadCopyDestination);
  EXPECT_EQ(f.copy.kernel, "scale");
  EXPECT_EQ(f.hazard(), "mapped-memory-visibility");
  EXPECT_NE(f.what().find("kernel scale (cuLaunchKernel)"), std::string::npos) << f.what();
  EXPECT_EQ(f.what().find("copy"), std::string::npos) << f.what();
  EXPECT_NE(f.missing().find("the kernel"), std::string::npos);
  EXPECT_EQ(f.second_heading(), "Kernel launched:");
  // Past the byte the pointer points to, the kernel's extent is not known: nothing is held there.
  EXPECT_TRUE(w.touch(kBase + kPage + 64, true).findings.empty());
  w.checker.stream_synchronized(s);
  EXPECT_FALSE(w.touch(kBase + kPage, true).ours);
}

// `--managed-memory`: a kernel handed a pointer into managed memory holds the whole allocation (its extent is not
// known), read or may-write as its signature says, until the host knows it ran.
const std::uintptr_t kManaged = 0x7e0000000000;
const StreamKey kKernelStream{0, 0x5a};

struct ManagedWorld : World {
  ManagedWorld() {
    checker.stream_created(kKernelStream, StreamKind::NonBlocking);
    checker.allocations().managed(kManaged, 4 * kPage);
    checker.allocations().managed(kManaged + 8 * kPage, kPage);  // never handed to a kernel
  }
  void launch(KernelUse use, SiteId site = 5) {
    checker.kernel_holds(KernelHold{"fill", kKernelStream, HostFootprint::linear(kManaged, 4 * kPage), use, site,
                                    KernelHeldMemory::Managed});
  }
};

TEST(Checker, AHostReadOfManagedMemoryAKernelMayWriteBeforeSynchronizingIsAFinding) {
  ManagedWorld w;
  w.launch(KernelUse::MayWrite);
  EXPECT_EQ(w.protection.at(kManaged + 3 * kPage), PageAccess::None);
  const auto read = w.touch(kManaged + kPage + 3, false, 101);
  ASSERT_EQ(read.findings.size(), 1u);
  const Finding& f = read.findings[0];
  EXPECT_EQ(f.kind, FindingKind::HostReadCopyDestination);
  EXPECT_EQ(f.copy.memory, PinnedKind::Managed);
  EXPECT_EQ(f.copy.kernel, "fill");
  EXPECT_EQ(f.hazard(), "managed-host-access-during-kernel");
  EXPECT_NE(f.what().find("host read of managed memory that kernel fill"), std::string::npos) << f.what();
  for (const char* fix : {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize"})
    EXPECT_NE(f.smallest_fix().find(fix), std::string::npos) << f.smallest_fix();
  EXPECT_EQ(f.second_heading(), "Kernel launched:");
  // Managed memory the kernel was not handed is not held.
  EXPECT_FALSE(w.touch(kManaged + 8 * kPage, true).ours);
}

TEST(Checker, ManagedMemoryIsTheHostsAgainAfterEachDocumentedSynchronization) {
  const std::function<void(Checker&)> synchronizations[] = {
      [](Checker& c) { c.context_synchronized(0); },  // cudaDeviceSynchronize
      [](Checker& c) { c.stream_synchronized(kKernelStream); },
      [](Checker& c) {
        c.event_created(0xe5);
        c.event_recorded(0xe5, kKernelStream);
        c.event_synchronized(0xe5);
      },
      [](Checker& c) {  // a host function queued after the kernel has started
        c.host_function_started(c.host_function_enqueued(kKernelStream));
      },
  };
  for (const auto& synchronize : synchronizations) {
    ManagedWorld w;
    w.launch(KernelUse::MayWrite);
    synchronize(w.checker);
    EXPECT_EQ(w.protection.at(kManaged), PageAccess::ReadWrite);
    EXPECT_FALSE(w.touch(kManaged + 5, true).ours);
  }
  // Another stream's synchronization is no synchronization with the kernel.
  ManagedWorld w;
  w.launch(KernelUse::MayWrite);
  const StreamKey other{0, 0x5b};
  w.checker.stream_created(other, StreamKind::NonBlocking);
  w.checker.stream_synchronized(other);
  EXPECT_EQ(w.touch(kManaged + 5, false).findings.size(), 1u);
}

TEST(Checker, APrefetchOrAnAttachQueuedAfterTheKernelLetsNothingGoAndIsNamed) {
  for (const auto& [queued, hazard] : {std::pair{QueuedBehindKernel::PrefetchToHost, "managed-prefetch-not-a-fence"},
                                      std::pair{QueuedBehindKernel::StreamAttach, "managed-stream-attach"}}) {
    ManagedWorld w;
    w.launch(KernelUse::MayWrite);
    w.checker.work_enqueued(kKernelStream);  // the prefetch or the attach, queued behind the kernel
    w.checker.queued_behind_managed_holds(kManaged, kManaged + kPage, queued);
    const auto read = w.touch(kManaged + 7, false);
    ASSERT_EQ(read.findings.size(), 1u) << hazard;
    EXPECT_EQ(read.findings[0].hazard(), hazard);
    EXPECT_EQ(read.findings[0].copy.queued_behind, queued);
    EXPECT_NE(read.findings[0].what().find(queued == QueuedBehindKernel::PrefetchToHost ? "cudaMemPrefetchAsync"
                                                                                         : "cudaStreamAttachMemAsync"),
              std::string::npos);
  }
  // Synchronizing the stream after the attach is the documented way: the host may use the memory.
  ManagedWorld w;
  w.launch(KernelUse::MayWrite);
  w.checker.work_enqueued(kKernelStream);
  w.checker.queued_behind_managed_holds(kManaged, kManaged + 4 * kPage, QueuedBehindKernel::StreamAttach);
  w.checker.stream_synchronized(kKernelStream);
  EXPECT_FALSE(w.touch(kManaged + 7, false).ours);
}

TEST(Checker, TheHostMayReadManagedMemoryAKernelOnlyReadsButNotWriteIt) {
  ManagedWorld w;
  w.launch(KernelUse::Reads);
  EXPECT_EQ(w.protection.at(kManaged), PageAccess::ReadOnly);
  EXPECT_TRUE(w.touch(kManaged + 9, false).findings.empty());
  const auto wrote = w.touch(kManaged + 9, true);
  ASSERT_EQ(wrote.findings.size(), 1u);
  EXPECT_EQ(wrote.findings[0].kind, FindingKind::HostWroteCopySource);
  EXPECT_EQ(wrote.findings[0].hazard(), "managed-host-access-during-kernel");
  EXPECT_NE(wrote.findings[0].what().find("host write to managed memory that kernel fill"), std::string::npos);
}

// Managed holds that could not be protected are let go unwatched, and a synchronous free lets go the holds on the
// memory it frees, neither with a finding; a copy's hold on pinned memory stays.
TEST(Checker, ManagedHoldsAreLetGoWhenUnwatchedOrFreed) {
  ManagedWorld w;
  w.checker.copy_async(w.download(kBase, 64));
  w.launch(KernelUse::MayWrite);
  w.checker.let_go_managed_holds();
  EXPECT_EQ(w.protection.at(kManaged), PageAccess::ReadWrite);
  EXPECT_FALSE(w.touch(kManaged, false).ours);
  EXPECT_EQ(w.protection.at(kBase), PageAccess::None);
  w.launch(KernelUse::MayWrite, 6);
  w.checker.holds_freed(kManaged, kManaged + 4 * kPage);
  EXPECT_EQ(w.protection.at(kManaged), PageAccess::ReadWrite);
  EXPECT_EQ(w.protection.at(kBase), PageAccess::None);
}

TEST(Allocations, ManagedMemoryIsFoundWholeFromAnyByteAndForgottenWhenFreed) {
  Allocations a;
  a.managed(kManaged, 3 * kPage);
  const std::optional<ManagedRange> found = a.managed_at(kManaged + 2 * kPage + 1);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->base, kManaged);
  EXPECT_EQ(found->bytes, 3 * kPage);
  EXPECT_FALSE(a.managed_at(kManaged + 3 * kPage));
  EXPECT_EQ(a.device_gone(kManaged), 3 * kPage);
  EXPECT_FALSE(a.managed_at(kManaged));
  // An address the driver hands out again, its free unseen, is what the new allocation is.
  a.managed(kManaged, kPage);
  a.device_visible(kManaged, 2 * kPage);
  EXPECT_FALSE(a.managed_at(kManaged));
  a.managed(kManaged, kPage);
  EXPECT_EQ(a.managed_at(kManaged)->bytes, kPage);
}

TEST(Checker, AnEventRecordedAfterTheCopyReleasesItWhenSynchronizedOrQueried) {
  World w;
  const StreamKey s{0, 0x10};
  w.checker.stream_created(s, StreamKind::NonBlocking);
  w.checker.event_created(0xe1);
  w.checker.event_recorded(0xe1, s);  // before the copy: captures nothing of it
  w.checker.copy_async(w.download(kBase, 64, s));
  w.checker.event_synchronized(0xe1);
  EXPECT_EQ(w.protection.at(kBase), PageAccess::None);
  w.checker.event_recorded(0xe1, s);
  w.checker.event_synchronized(0xe1);
  EXPECT_EQ(w.protection.at(kBase), PageAccess::ReadWrite);
}

TEST(Checker, AnEventWaitChainOrdersACopyForTheStreamThatWaited) {
  World w;
  const StreamKey a{0, 0xa}, b{0, 0xb};
  w.checker.stream_created(a, StreamKind::NonBlocking);
  w.checker.stream_created(b, StreamKind::NonBlocking);
  w.checker.event_created(0xe);
  w.checker.copy_async(w.download(kBase, 64, a));
  w.checker.event_recorded(0xe, a);
  w.checker.stream_waited_event(b, 0xe);
  w.checker.work_enqueued(b);
  w.checker.stream_synchronized(b);
  EXPECT_EQ(w.protection.at(kBase), PageAccess::ReadWrite);
}

TEST(Checker, RelyingOnTheImplicitSyncOfASmallPinnedUploadNamesTheDeviation) {
  World w;
  const StreamKey legacy{0, 0}, b{0, 0xb}, b2{0, 0xb2};
  w.checker.stream_created(b, StreamKind::Blocking);
  w.checker.stream_created(b2, StreamKind::Blocking);
  w.checker.copy_async(w.download(kBase, 64, b));
  // A small pinned upload on the legacy stream documentedly waits for b's copy; a kernel on b2 waits for it.
  w.checker.copy_async(w.upload(kBase + 4 * kPage, 1024, legacy, 7));
  w.checker.work_enqueued(b2);
  w.checker.stream_synchronized(b2);
  const auto hit = w.touch(kBase + 8, false);
  ASSERT_EQ(hit.findings.size(), 1u);
  ASSERT_EQ(hit.findings[0].relies_on.size(), 1u);
  EXPECT_EQ(hit.findings[0].relies_on[0], Deviation::kSmallPinnedUploadSkipsImplicitSync);
  EXPECT_NE(hit.findings[0].missing().find("small-pinned-upload-skips-implicit-sync"), std::string::npos);
}

// The deviations' engines take no step while every step is one the rules say the same of (work and markers on
// non-blocking streams): they take the documented one's state at the first step they would take differently.
TEST(Checker, TheDeviationsEnginesStepOnlyOnceARuleTheyChangeIsAsked) {
  World w;
  const StreamKey a{0, 0xa}, b{0, 0xb}, blocking{0, 0xc};
  w.checker.stream_created(a, StreamKind::NonBlocking);
  w.checker.stream_created(b, StreamKind::NonBlocking);
  w.checker.stream_created(blocking, StreamKind::Blocking);
  w.checker.event_created(0xe);
  w.checker.copy_async(w.download(kBase, 64, a));
  w.checker.event_recorded(0xe, a);
  w.checker.stream_waited_event(b, 0xe);
  w.checker.work_enqueued(b);
  EXPECT_EQ(w.checker.engines_taking_steps(), 1u);
  w.checker.event_recorded(0xe, blocking);  // a marker on a blocking stream: deviation 3 changes its rule
  EXPECT_EQ(w.checker.engines_taking_steps(), conformance::kDeviationCount + 2);
  // The copy on `a` is still held, in every engine: b's event wait does not order the host after it.
  EXPECT_EQ(w.touch(kBase + 8, false).findings.size(), 1u);
}

// The same program with a kernel on the legacy stream reading one pinned byte in the small upload's place: the
// kernel waits for b's copy under every engine (the deviation is about small pinned uploads, not kernels), so
// once b2 is synchronized nothing is held.
TEST(Checker, AKernelsHoldOnPinnedMemoryIsNoSmallUploadForTheDeviation) {
  World w;
  const StreamKey legacy{0, 0}, b{0, 0xb}, b2{0, 0xb2};
  w.checker.stream_created(b, StreamKind::Blocking);
  w.checker.stream_created(b2, StreamKind::Blocking);
  w.checker.copy_async(w.download(kBase, 64, b));
  w.checker.kernel_holds(KernelHold{"k", legacy, HostFootprint::linear(kBase + 4 * kPage, 1), KernelUse::Reads, 7});
  w.checker.work_enqueued(b2);
  w.checker.stream_synchronized(b2);
  EXPECT_TRUE(w.touch(kBase + 8, false).findings.empty());
  EXPECT_FALSE(w.touch(kBase + 8, false).ours);
}

TEST(Checker, FreeingOrUnregisteringMemoryACopyOwnsIsAFinding) {
  World w;
  w.checker.copy_async(w.upload(kBase + 100, 100));
  const auto freed = w.checker.pinned_released(kBase, false, 9, 1);
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(freed[0].kind, FindingKind::FreedWhileCopyOwns);
  EXPECT_EQ(freed[0].hazard(), "free-while-in-flight");
  EXPECT_EQ(w.protection.at(kBase), PageAccess::ReadWrite);
  EXPECT_FALSE(w.checker.pinned_kind(kBase).has_value());

  w.checker.pinned_allocated(kBase, kPage, PinnedKind::Registered);
  w.checker.copy_async(w.download(kBase, 10));
  w.checker.context_synchronized(0);
  EXPECT_TRUE(w.checker.pinned_released(kBase, true, 9, 1).empty());
}

TEST(Checker, EachPairOfCallSitesIsReportedOnce) {
  World w;
  for (int i = 0; i < 3; ++i) {
    w.checker.copy_async(w.upload(kBase, 64, {}, 1));
    const auto hit = w.touch(kBase, true, 55);
    EXPECT_EQ(hit.findings.size(), i == 0 ? 1u : 0u);
    w.checker.stream_synchronized({});
  }
  w.checker.copy_async(w.upload(kBase, 64, {}, 1));
  EXPECT_EQ(w.touch(kBase, true, 56).findings.size(), 1u);  // another access site
  EXPECT_EQ(w.checker.stats().findings, 2u);
  EXPECT_EQ(w.checker.stats().occurrences, 4u);
}

TEST(Checker, EveryOccurrenceReportsEachCopysFirstConflictingAccess) {
  World w;
  w.checker.set_every_occurrence(true);
  for (int i = 0; i < 3; ++i) {
    w.checker.copy_async(w.upload(kBase, 64, {}, 1));
    EXPECT_EQ(w.touch(kBase, true, 55).findings.size(), 1u);
    EXPECT_EQ(w.touch(kBase + 1, true, 55).findings.size(), 0u);  // the copy was reported: its first access only
    w.checker.stream_synchronized({});
  }
  EXPECT_EQ(w.checker.stats().findings, 1u);  // still one distinct pair of call sites
  EXPECT_EQ(w.checker.stats().occurrences, 3u);
}

TEST(Checker, TwoCopiesSharingAPageKeepItHeldUntilBothAreReleased) {
  World w;
  const StreamKey a{0, 0xa}, b{0, 0xb};
  w.checker.stream_created(a, StreamKind::NonBlocking);
  w.checker.stream_created(b, StreamKind::NonBlocking);
  w.checker.copy_async(w.upload(kBase, 100, a));
  w.checker.copy_async(w.download(kBase + 200, 100, b));
  EXPECT_EQ(w.protection.at(kBase), PageAccess::None);
  w.checker.stream_synchronized(b);
  EXPECT_EQ(w.protection.at(kBase), PageAccess::ReadOnly);
  // A read of the upload's bytes is allowed; a write is found.
  const auto read = w.touch(kBase + 10, false);
  EXPECT_TRUE(read.findings.empty());
  EXPECT_FALSE(read.step);
  EXPECT_EQ(w.touch(kBase + 10, true).findings.size(), 1u);
}

TEST(Checker, OverlappingUploadsEachOwnTheirBytes) {
  World w;
  const StreamKey a{0, 0xa}, b{0, 0xb};
  w.checker.stream_created(a, StreamKind::NonBlocking);
  w.checker.stream_created(b, StreamKind::NonBlocking);
  w.checker.copy_async(w.upload(kBase, 3 * kPage, a, 1));
  w.checker.copy_async(w.upload(kBase + kPage, 3 * kPage, b, 2));
  const auto both = w.touch(kBase + kPage + 1, true);
  EXPECT_EQ(both.findings.size(), 2u);
}

TEST(Checker, APitchedCopyOwnsItsRowsAndNotTheGapsBetweenThem) {
  World w;
  AsyncCopy copy = w.upload(kBase, 0);
  copy.api = "cuMemcpy2DAsync_v2";
  copy.src.host = HostFootprint{kBase, 100, 1000, 5, 1, 0};
  copy.bytes = 500;
  w.checker.copy_async(copy);
  EXPECT_TRUE(w.touch(kBase + 1000 + 150, true).findings.empty());  // between rows
  const auto hit = w.touch(kBase + 3000 + 20, true);
  ASSERT_EQ(hit.findings.size(), 1u);
  EXPECT_EQ(hit.findings[0].offset, 320u);
}

TEST(HostFootprint, AThreeDimensionalCopyOwnsItsSlicesRowsAndNotTheGaps) {
  // 3 slices 10000 bytes apart, each 4 rows of 16 bytes 100 apart.
  const HostFootprint f{kBase, 16, 100, 4, 3, 10000};
  EXPECT_TRUE(f.contains(kBase + 10000 + 300 + 5));
  EXPECT_EQ(f.offset_of(kBase + 10000 + 300 + 5), (1 * 4 + 3) * 16 + 5u);
  EXPECT_FALSE(f.contains(kBase + 10000 + 400));  // past the slice's last row
  EXPECT_FALSE(f.contains(kBase + 116));          // between rows
  EXPECT_EQ(f.end(), kBase + 20000 + 300 + 16);
  EXPECT_EQ(f.bytes(), 192u);
}

TEST(Checker, AHostFunctionQueuedBehindTheCopyMayTouchItsDestination) {
  World w;
  const StreamKey s{0, 0x5};
  w.checker.stream_created(s, StreamKind::NonBlocking);
  w.checker.copy_async(w.download(kBase, 64, s));
  const WorkStamp behind = w.checker.host_function_enqueued(s);
  EXPECT_TRUE(w.checker.host_access(kBase, false, behind, 3, 2).findings.empty());
  const StreamKey other{0, 0x6};
  w.checker.stream_created(other, StreamKind::NonBlocking);
  const WorkStamp elsewhere = w.checker.host_function_enqueued(other);
  EXPECT_EQ(w.checker.host_access(kBase, false, elsewhere, 4, 2).findings.size(), 1u);
}

// A host function runs when its stream reaches it, after later calls were made: a copy queued behind it
// (or ordered after it through an event) waits for it, so the function's access is no conflict.
TEST(Checker, AHostFunctionMayTouchWhatACopyQueuedBehindItWillUse) {
  World w;
  const StreamKey s{0, 0x5}, other{0, 0x6}, third{0, 0x7};
  w.checker.stream_created(s, StreamKind::NonBlocking);
  w.checker.stream_created(other, StreamKind::NonBlocking);
  w.checker.stream_created(third, StreamKind::NonBlocking);
  const WorkStamp fills = w.checker.host_function_enqueued(s);
  w.checker.copy_async(w.upload(kBase, 64, s));  // behind the function on its stream
  w.checker.event_created(9);
  w.checker.event_recorded(9, s);
  w.checker.stream_waited_event(other, 9);
  w.checker.copy_async(w.download(kBase + 4096, 64, other));  // after it through an event
  w.checker.copy_async(w.download(kBase + 8192, 64, third));   // not ordered with it
  EXPECT_TRUE(w.checker.host_access(kBase, true, fills, 3, 2).findings.empty());
  EXPECT_TRUE(w.checker.host_access(kBase + 4096, true, fills, 3, 2).findings.empty());
  EXPECT_EQ(w.checker.host_access(kBase + 8192, true, fills, 3, 2).findings.size(), 1u);
}

// The program observably waits for a host function's start (a flag it sets, a thread it starts): the start
// orders everything after it on every host thread, as a synchronization does (rule 9, host threads as one).
TEST(Checker, AHostFunctionsStartReleasesTheCopiesBeforeItForEveryThread) {
  World w;
  const StreamKey s{0, 0x5};
  w.checker.stream_created(s, StreamKind::Blocking);
  w.checker.copy_async(w.download(kBase, 64, s));
  const WorkStamp callback = w.checker.host_function_enqueued(s);
  EXPECT_EQ(w.protection.at(kBase), PageAccess::None);
  w.checker.host_function_started(callback);
  EXPECT_EQ(w.protection.at(kBase), PageAccess::ReadWrite);
  // A thread the callback started reads the results and frees them: neither is a finding.
  EXPECT_TRUE(w.touch(kBase, false).findings.empty());
  EXPECT_TRUE(w.checker.pinned_released(kBase, false, 5, 3).empty());
}

// A host function queued on another stream says nothing of the copy: its start releases nothing.
TEST(Checker, AHostFunctionsStartOnAnotherStreamReleasesNothing) {
  World w;
  const StreamKey s{0, 0x5}, other{0, 0x6};
  w.checker.stream_created(s, StreamKind::NonBlocking);
  w.checker.stream_created(other, StreamKind::NonBlocking);
  w.checker.copy_async(w.download(kBase, 64, s));
  w.checker.host_function_started(w.checker.host_function_enqueued(other));
  EXPECT_EQ(w.touch(kBase, false).findings.size(), 1u);
}

// The driver may run one stream's start marker, then another's, then the first stream's function on the same
// thread: an access from a host-function thread is judged against every function running, never the last
// marker the thread ran (program 201 of the agreement test, which once reported this correct access).
TEST(Checker, AHostFunctionThreadsAccessIsJudgedByTheFunctionsRunningNotByItsLastMarker) {
  World w;
  const StreamKey s2{0, 0x2}, s3{0, 0x3};
  w.checker.stream_created(s2, StreamKind::Blocking);
  w.checker.stream_created(s3, StreamKind::Blocking);
  const WorkStamp reads = w.checker.host_function_enqueued(s2);
  w.checker.copy_async(AsyncCopy{"cuMemsetD8Async", s2, {MemoryKind::Device, {}},
                                 {MemoryKind::PinnedHost, HostFootprint::linear(kBase, 64)}, 64, 6});
  const WorkStamp unrelated = w.checker.host_function_enqueued(s3);
  w.checker.host_function_started(reads);
  w.checker.host_function_started(unrelated);  // the thread's last marker is another stream's
  w.checker.host_function_returned(unrelated);
  EXPECT_EQ(w.checker.host_functions_running(), 1u);
  EXPECT_TRUE(w.checker.host_access(kBase, false, Accessor::host_function_thread(), 3, 2).findings.empty());
  // The same access from a program thread races with the memset.
  EXPECT_EQ(w.checker.host_access(kBase + 1, false, Accessor::program_thread(), 4, 1).findings.size(), 1u);
}

TEST(Checker, AHostFunctionThreadsAccessRacesWhenNoRunningFunctionIsOrderedWithTheCopy) {
  World w;
  const StreamKey s{0, 0x5}, other{0, 0x6};
  w.checker.stream_created(s, StreamKind::NonBlocking);
  w.checker.stream_created(other, StreamKind::NonBlocking);
  const WorkStamp behind = w.checker.host_function_enqueued(s);
  w.checker.copy_async(w.upload(kBase, 64, s));
  const WorkStamp elsewhere = w.checker.host_function_enqueued(other);
  w.checker.host_function_started(elsewhere);
  EXPECT_EQ(w.checker.host_access(kBase, true, Accessor::host_function_thread(), 3, 2).findings.size(), 1u);
  // Once the function the copy waits for runs, its thread may write the copy's source.
  w.checker.copy_async(w.upload(kBase + 4096, 64, s));
  w.checker.host_function_started(behind);
  EXPECT_TRUE(w.checker.host_access(kBase + 4096, true, Accessor::host_function_thread(), 3, 2).findings.empty());
  // A function that has returned orders nothing any more.
  w.checker.host_function_returned(behind);
  w.checker.host_function_returned(elsewhere);
  w.checker.copy_async(w.upload(kBase + 8192, 64, s, 7));
  EXPECT_EQ(w.checker.host_access(kBase + 8192, true, Accessor::host_function_thread(), 8, 2).findings.size(), 1u);
}

// A graph's host nodes are not seen start: a host-function thread's access to a copy of a graph that has host
// nodes is taken as a node ordered with it; a program thread's is judged as ever.
TEST(Checker, ACopyOfAGraphWithHostNodesIsOrderedWithHostFunctionThreadsOnly) {
  World w;
  AsyncCopy node = w.download(kBase, 64);
  node.origin = CopyOrigin::GraphLaunch;
  node.host_nodes = GraphHostNodes::Present;
  w.checker.copy_async(node);
  EXPECT_TRUE(w.checker.host_access(kBase, false, Accessor::host_function_thread(), 3, 2).findings.empty());
  EXPECT_EQ(w.checker.host_access(kBase, false, Accessor::program_thread(), 4, 1).findings.size(), 1u);
}

// Work enqueued after the host synchronized follows what the host knew (the call that enqueues it comes after
// the synchronization): its clock knows the synchronized work.
TEST(OrderEngine, WorkEnqueuedAfterAHostSynchronizationFollowsWhatTheHostKnew) {
  OrderEngine e(RuleSet::all());
  e.add_stream(0, StreamKind::NonBlocking, 0);
  e.add_stream(1, StreamKind::NonBlocking, 0);
  const WorkStamp copy = e.enqueue(0, StreamWorkFacts{.stream = StreamKind::NonBlocking});
  const WorkStamp before = e.enqueue(1, StreamWorkFacts{.stream = StreamKind::NonBlocking});
  EXPECT_FALSE(OrderEngine::clock_knows(e.latest_clock(1), copy));
  e.host_synchronizes_stream(0);
  const WorkStamp after = e.enqueue(1, StreamWorkFacts{.stream = StreamKind::NonBlocking});
  EXPECT_TRUE(OrderEngine::clock_knows(e.latest_clock(1), copy));
  // A host function enqueued then may rely on it too (rule 9 with rule 4).
  const WorkStamp function = e.enqueue_host_function(1);
  EXPECT_TRUE(e.host_function_knows(function, copy));
  EXPECT_NE(before, after);
}

// A host function's start joins its clock into the host's: the engine's release that the checker's
// AHostFunctionsStartReleases... test relies on, pinned at the engine too.
TEST(OrderEngine, AHostFunctionsStartTellsTheHostWhatRanBeforeIt) {
  OrderEngine e(RuleSet::all());
  e.add_stream(0, StreamKind::Blocking, 0);
  const WorkStamp copy = e.enqueue(0, StreamWorkFacts{.stream = StreamKind::Blocking});
  const WorkStamp function = e.enqueue_host_function(0);
  EXPECT_FALSE(e.host_knows(copy));
  e.host_function_started(function);
  EXPECT_TRUE(e.host_knows(copy));
  EXPECT_FALSE(e.host_knows(function));  // the function itself has not returned
  // Work enqueued elsewhere meanwhile does not wait for the running function.
  e.add_stream(1, StreamKind::NonBlocking, 0);
  e.enqueue(1, StreamWorkFacts{.stream = StreamKind::NonBlocking});
  EXPECT_FALSE(OrderEngine::clock_knows(e.latest_clock(1), function));
}

TEST(Checker, SamplingWatchesARangesFirstCopiesThenOneInN) {
  World w;
  w.checker.set_sampling(Sampling{2, 3});
  int named = 0;
  std::vector<bool> watched;
  for (int i = 0; i < 8; ++i) {
    const auto before = w.checker.stats().copies_watched;
    w.checker.copy_async(w.upload(kBase, 64), [&] { ++named; return SiteId{1}; });
    watched.push_back(w.checker.stats().copies_watched > before);
    w.checker.stream_synchronized({});
  }
  EXPECT_EQ(watched, (std::vector<bool>{true, true, false, false, true, false, false, true}));
  EXPECT_EQ(named, 4);  // a stack only for the copies watched
  EXPECT_EQ(w.checker.stats().copies_sampled_out, 4u);
}

TEST(Checker, PageableAndDeviceEndsAreNotHeld) {
  World w;
  w.checker.copy_async(AsyncCopy{"cuMemcpyDtoHAsync_v2", {}, {MemoryKind::Device, {}},
                                 {MemoryKind::PageableHost, HostFootprint::linear(0x1000, 64)}, 64, 1});
  EXPECT_TRUE(w.protection.pages.empty());
  EXPECT_EQ(w.checker.stats().pageable_d2h_async, 1u);
  EXPECT_EQ(w.checker.stats().copies_watched, 0u);
}

TEST(Checker, ASynchronousCopyOnTheLegacyStreamReleasesEarlierLegacyAndBlockingWork) {
  World w;
  const StreamKey b{0, 0xb};
  w.checker.stream_created(b, StreamKind::Blocking);
  w.checker.copy_async(w.download(kBase, 64, b));
  w.checker.copy_sync(0, MemoryKind::Device, MemoryKind::PinnedHost);
  EXPECT_EQ(w.protection.at(kBase), PageAccess::ReadWrite);
}

TEST(Checker, ASynchronousDeviceToDeviceCopyDoesNotSynchronizeTheHost) {
  World w;
  w.checker.copy_async(w.upload(kBase, 64));
  w.checker.copy_sync(0, MemoryKind::Device, MemoryKind::Device);  // rule 8: no host-side synchronization
  EXPECT_EQ(w.protection.at(kBase), PageAccess::ReadOnly);
  EXPECT_EQ(w.touch(kBase, true).findings.size(), 1u);
}

}  // namespace
}  // namespace hazardlab::check

namespace hazardlab {

// The launcher hands the injected library its settings through the environment, read by the same
// declarations as every other setting; a sample or a flag the declaration refuses never stops the program and
// never watches less: it reads as "every copy", "one finding per pair", and is said refused. A protection the
// declaration refuses is said refused too, and is never taken for `auto`.
TEST(CheckSettings, TheInjectedLibraryReadsTheDeclaredSettingsAndFallsBackToWatchingEverything) {
  const std::string sample(setting::kCheckSample.name), every(setting::kCheckEveryOccurrence.name);
  const auto read = [] { return check::read_check_settings(SettingSource::from_environment()); };
  ::setenv(sample.c_str(), "7", 1);
  ::setenv(every.c_str(), "yes", 1);
  EXPECT_EQ(read().settings.sample, 7u);
  EXPECT_TRUE(read().settings.every_occurrence);
  EXPECT_TRUE(read().refused.empty());
  for (const char* refused : {"abc", "-3", "1000001", ""}) {
    ::setenv(sample.c_str(), refused, 1);
    EXPECT_EQ(read().settings.sample, 0u) << "HL_CHECK_SAMPLE=" << refused;
    EXPECT_EQ(read().refused.size(), 1u) << "HL_CHECK_SAMPLE=" << refused;
    EXPECT_FALSE(read().protection_refused);
  }
  ::setenv(every.c_str(), "maybe", 1);
  EXPECT_FALSE(read().settings.every_occurrence);
  const std::string protection(setting::kCheckProtection.name);
  ::setenv(protection.c_str(), "keys", 1);
  EXPECT_EQ(read().settings.protection, check::ProtectionRequest::Keys);
  ::setenv(protection.c_str(), "mprotect", 1);
  EXPECT_EQ(read().settings.protection, check::ProtectionRequest::Mprotect);
  ::setenv(protection.c_str(), "range-keys", 1);
  EXPECT_EQ(read().settings.protection, check::ProtectionRequest::RangeKeys);
  for (auto request : {check::ProtectionRequest::Auto, check::ProtectionRequest::Keys, check::ProtectionRequest::RangeKeys,
                       check::ProtectionRequest::Mprotect})
    EXPECT_EQ(check::protection_request_named(check::to_string(request)), request) << check::to_string(request);
  ::setenv(protection.c_str(), "pkeys", 1);
  const check::CheckSettingsRead unknown = read();
  EXPECT_TRUE(unknown.protection_refused);
  EXPECT_TRUE(std::any_of(unknown.refused.begin(), unknown.refused.end(), [](const std::string& r) {
    return r.find("HL_CHECK_PROTECTION='pkeys'") != std::string::npos;
  }));
  const std::vector<std::string> refused = check::refused_check_settings();
  EXPECT_TRUE(std::any_of(refused.begin(), refused.end(),
                          [](const std::string& r) { return r.find("HL_CHECK_PROTECTION") != std::string::npos; }));
  ::unsetenv(protection.c_str());
  ::unsetenv(sample.c_str());
  ::unsetenv(every.c_str());
  EXPECT_EQ(read().settings.sample, 0u);
  EXPECT_TRUE(read().refused.empty());
}

// The launcher hands over what it decided, from the same table: each setting off its default by its one spelling,
// and each at its default removed (the program inherits no other value); read back, the same settings.
TEST(CheckSettings, TheLauncherHandsOverEachDecidedSettingAndTheLibraryReadsTheSame) {
  check::CheckSettings decided{8, true, true, true, check::ProtectionRequest::RangeKeys};
  decided.graph_nodes = true;
  decided.ptx_footprints = true;
  std::vector<std::string> entries;
  for (const auto& [name, text] : check::handed_over(decided)) {
    ASSERT_TRUE(text.has_value()) << name;
    entries.push_back(std::string(name) + "=" + *text);
  }
  const check::CheckSettingsRead read = check::read_check_settings(SettingSource(entries));
  EXPECT_TRUE(read.refused.empty());
  EXPECT_EQ(read.settings.sample, 8u);
  EXPECT_TRUE(read.settings.every_occurrence);
  EXPECT_TRUE(read.settings.kernels_own_mapped_memory);
  EXPECT_TRUE(read.settings.managed_memory);
  EXPECT_TRUE(read.settings.graph_nodes);
  EXPECT_TRUE(read.settings.ptx_footprints);
  EXPECT_EQ(read.settings.protection, check::ProtectionRequest::RangeKeys);
  for (const auto& [name, text] : check::handed_over(check::CheckSettings{}))
    EXPECT_FALSE(text.has_value()) << name << " handed over at its default";
}

// The protection request is spelled once (to_string and protection_request_named): the setting's declaration, which
// `hazardlab settings` and the README show, lists the same words in the same order, and `--protection` refuses any
// other word naming the option, the value and the words allowed.
TEST(CheckSettings, TheProtectionSettingListsTheRequestsWordsAndTheOptionRefusesOthers) {
  std::vector<std::string> words;
  for (const check::ProtectionRequest r : check::kProtectionRequests) words.emplace_back(check::to_string(r));
  EXPECT_EQ(declared_words(setting::kCheckProtection), words);
  EXPECT_EQ(setting::kCheckProtection.default_text, check::to_string(check::ProtectionRequest::Auto));
  EXPECT_EQ(check::protection_request_given("--protection", "range-keys"), check::ProtectionRequest::RangeKeys);
  try {
    (void)check::protection_request_given("--protection", "pkeys");
    ADD_FAILURE() << "pkeys taken for a page protection";
  } catch (const SettingsError& e) {
    EXPECT_STREQ(e.what(), "--protection='pkeys': expected a page protection: auto, keys, range-keys or mprotect");
  }
}

}  // namespace hazardlab
