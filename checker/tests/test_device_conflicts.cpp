// The device's half of a race on the CPU: device work played onto the order engine as the injected library would
// enqueue it, and the conflicts the rules leave. Each test stands for a rule of device_conflicts.hpp, and fails
// with that rule taken out.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

#include "checker/core/checker.hpp"
#include "checker/core/device_conflicts.hpp"
#include "checker/core/kernel_signature.hpp"
#include "checker/tests/no_protection.hpp"

namespace hazardlab::check {
namespace {

using conformance::RuleSet;
using conformance::StreamKind;
using conformance::StreamWorkFacts;

constexpr std::uintptr_t kBuffer = 0x7f0000000000, kOther = 0x7f0000100000;
constexpr std::size_t kBytes = 1 << 20;

// A program's streams: the legacy stream (slot 0), two non-blocking streams and a blocking one.
struct Program {
  OrderEngine order{RuleSet::all()};
  DeviceConflicts conflicts;
  std::vector<DeviceConflict> found;
  static constexpr StreamSlot kLegacy = 0, kSide = 1, kOtherSide = 2, kBlocking = 3;
  Program() {
    order.add_stream(kLegacy, StreamKind::Legacy, 0);
    order.add_stream(kSide, StreamKind::NonBlocking, 0);
    order.add_stream(kOtherSide, StreamKind::NonBlocking, 0);
    order.add_stream(kBlocking, StreamKind::Blocking, 0);
  }
  void work(StreamSlot stream, std::vector<DeviceRange> ranges, SiteId site, const char* api = "cuLaunchKernel") {
    const WorkStamp stamp = order.enqueue(stream, StreamWorkFacts{.stream = order.stream_kind(stream)});
    for (DeviceConflict& c : conflicts.enqueued(DeviceWork{stamp, order.latest_clock(stream), api, site, ranges}))
      found.push_back(std::move(c));
  }
  static DeviceRange writes(std::uintptr_t begin, std::size_t bytes) {
    return {begin, begin + bytes, DeviceAccessKind::Write};
  }
  static DeviceRange reads(std::uintptr_t begin, std::size_t bytes) {
    return {begin, begin + bytes, DeviceAccessKind::Read};
  }
};

// cross-stream-no-event: a kernel on one stream writes a buffer that a copy on another reads, no event between.
TEST(DeviceConflicts, AKernelAndACopyOnTwoStreamsWithNoEventRace) {
  Program p;
  p.work(Program::kSide, {Program::writes(kBuffer, 1)}, 1);
  p.work(Program::kOtherSide, {Program::reads(kBuffer, kBytes)}, 2, "cuMemcpyDtoHAsync_v2");
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].earlier.site, 1u);
  EXPECT_EQ(p.found[0].later.site, 2u);
  EXPECT_EQ(p.found[0].later.api, "cuMemcpyDtoHAsync_v2");
  EXPECT_EQ(p.found[0].address, kBuffer);
  EXPECT_EQ(p.found[0].earlier.kind, DeviceAccessKind::Write);
}

// The guard: an event recorded after the producer and waited for before the consumer orders them.
TEST(DeviceConflicts, AnEventBetweenThemOrdersThem) {
  Program p;
  p.work(Program::kSide, {Program::writes(kBuffer, 1)}, 1);
  p.order.record_event(0, Program::kSide);
  p.order.wait_event(Program::kOtherSide, 0);
  p.work(Program::kOtherSide, {Program::reads(kBuffer, kBytes)}, 2);
  EXPECT_TRUE(p.found.empty());
}

TEST(DeviceConflicts, WorkOnOneStreamIsOrdered) {
  Program p;
  p.work(Program::kSide, {Program::writes(kBuffer, 1)}, 1);
  p.work(Program::kSide, {Program::writes(kBuffer, kBytes)}, 2);
  EXPECT_TRUE(p.found.empty());
}

// legacy-stream-nonblocking-consumer: the legacy stream orders a blocking stream's work (rule 2), not a
// non-blocking one's.
TEST(DeviceConflicts, TheLegacyStreamOrdersABlockingConsumerNotANonBlockingOne) {
  Program p;
  p.work(Program::kLegacy, {Program::writes(kBuffer, 1)}, 1);
  p.work(Program::kBlocking, {Program::reads(kBuffer, 1)}, 2);
  EXPECT_TRUE(p.found.empty());
  p.work(Program::kSide, {Program::reads(kBuffer, 1)}, 3);
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].earlier.site, 1u);
}

TEST(DeviceConflicts, TwoReadersDoNotRace) {
  Program p;
  p.work(Program::kSide, {Program::reads(kBuffer, kBytes)}, 1);
  p.work(Program::kOtherSide, {Program::reads(kBuffer, 1)}, 2);
  EXPECT_TRUE(p.found.empty());
}

TEST(DeviceConflicts, DisjointMemoryDoesNotRace) {
  Program p;
  p.work(Program::kSide, {Program::writes(kBuffer, kBytes)}, 1);
  p.work(Program::kOtherSide, {Program::writes(kOther, kBytes)}, 2);
  p.work(Program::kOtherSide, {Program::writes(kBuffer + kBytes, 64)}, 3);  // the byte after the end
  EXPECT_TRUE(p.found.empty());
}

// The host synchronized with the producer: everything enqueued afterwards is ordered after it, and it is forgotten.
TEST(DeviceConflicts, WorkTheHostSynchronizedWithIsForgottenAndRacesWithNothingLater) {
  Program p;
  p.work(Program::kSide, {Program::writes(kBuffer, 1)}, 1);
  p.order.host_synchronizes_stream(Program::kSide);
  p.conflicts.forget_known(p.order);
  EXPECT_EQ(p.conflicts.remembered(), 0u);
  p.work(Program::kOtherSide, {Program::reads(kBuffer, 1)}, 2);
  EXPECT_TRUE(p.found.empty());
}

TEST(DeviceConflicts, EachPairOfCallSitesIsReportedOnce) {
  Program p;
  for (int round = 0; round < 3; ++round) {
    p.work(Program::kSide, {Program::writes(kBuffer, 1)}, 1);
    p.work(Program::kOtherSide, {Program::reads(kBuffer, 1)}, 2);
  }
  EXPECT_EQ(p.found.size(), 2u);  // (1, 2), and (2, 1): the second round's writer after the first's reader
}

// Each pair of call sites, not each earlier site: a producer that two different consumers race with is reported
// with each of them.
TEST(DeviceConflicts, OneEarlierSiteRacingWithTwoLaterSitesIsReportedWithEach) {
  Program p;
  p.work(Program::kSide, {Program::writes(kBuffer, 64)}, 1);
  p.work(Program::kOtherSide, {Program::reads(kBuffer, 64)}, 2);
  p.work(Program::kLegacy, {Program::reads(kBuffer, 64)}, 3);  // the legacy stream waits for no non-blocking one
  ASSERT_EQ(p.found.size(), 2u);
  EXPECT_EQ(p.found[0].earlier.site, 1u);
  EXPECT_EQ(p.found[0].later.site, 2u);
  EXPECT_EQ(p.found[1].earlier.site, 1u);
  EXPECT_EQ(p.found[1].later.site, 3u);
}

std::array<std::byte, 8> word(std::uintptr_t value) {
  std::array<std::byte, 8> bytes{};
  std::memcpy(bytes.data(), &value, sizeof value);
  return bytes;
}

// The extent rule: each stream's kernels are handed their own chunk of one allocation, and its copies move their
// own chunk: no alarm. A kernel handed the whole buffer's start while another stream copies the first chunk: found.
TEST(DeviceConflicts, AChunkedPipelineOverOneAllocationRaisesNoAlarm) {
  const std::vector<DeviceAllocation> allocations{{kBuffer, kBytes}};
  constexpr std::size_t kChunk = kBytes / 4;
  Program p;
  for (std::size_t chunk = 0; chunk < 4; ++chunk) {
    const StreamSlot stream = chunk % 2 == 0 ? Program::kSide : Program::kOtherSide;
    const std::uintptr_t start = kBuffer + chunk * kChunk;
    p.work(stream, {Program::writes(start, kChunk)}, 10, "cuMemcpyHtoDAsync_v2");
    const auto pointer = word(start);
    const std::array<KernelArgument, 1> arguments{KernelArgument{pointer, ArgumentAccess::MayWrite}};
    p.work(stream, kernel_ranges(arguments, allocations, 4), 11);
    p.work(stream, {Program::reads(start, kChunk)}, 12, "cuMemcpyDtoHAsync_v2");
  }
  EXPECT_TRUE(p.found.empty());
  const auto pointer = word(kBuffer);
  const std::array<KernelArgument, 1> whole{KernelArgument{pointer, ArgumentAccess::MayWrite}};
  p.work(Program::kOtherSide, kernel_ranges(whole, allocations, 4), 13);
  // With the first chunk's upload and its readback (its kernel, a may-write too, may only have read).
  ASSERT_EQ(p.found.size(), 2u);
  EXPECT_EQ(p.found[0].earlier.site, 10u);
  EXPECT_EQ(p.found[1].earlier.site, 12u);
  for (const DeviceConflict& c : p.found) EXPECT_EQ(c.later.site, 13u);
}

// A write ordered after the last write and the reads since it stands for all of them; an unordered one does not
// hide what it raced with from a third stream.
TEST(DeviceConflicts, AnOrderedWriteSupersedesTheHistoryAndAnUnorderedOneDoesNot) {
  Program p;
  p.work(Program::kSide, {Program::writes(kBuffer, 64)}, 1);
  p.work(Program::kSide, {Program::reads(kBuffer, 64)}, 2);
  p.work(Program::kSide, {Program::writes(kBuffer, 64)}, 3);
  p.order.record_event(0, Program::kSide);
  p.order.wait_event(Program::kOtherSide, 0);
  p.work(Program::kOtherSide, {Program::reads(kBuffer, 64)}, 4);
  EXPECT_TRUE(p.found.empty());
  p.work(Program::kLegacy, {Program::writes(kBuffer + 32, 64)}, 5);  // the legacy stream waits for neither
  ASSERT_EQ(p.found.size(), 2u);
  EXPECT_EQ(p.found[0].earlier.site, 3u);
  EXPECT_EQ(p.found[1].earlier.site, 4u);
  EXPECT_EQ(p.found[0].address, kBuffer + 32);
}

// Two unordered writes are both kept: a third stream's read ordered after the second still races with the first
// (kept as one write per interval, the first was forgotten when the second came, and this race was missed).
TEST(DeviceConflicts, AnUnorderedWriteKeepsTheWriteItRacedWith) {
  Program p;
  p.work(Program::kSide, {Program::writes(kBuffer, 64)}, 1);
  p.work(Program::kOtherSide, {Program::writes(kBuffer, 64)}, 2);
  ASSERT_EQ(p.found.size(), 1u);
  p.order.record_event(0, Program::kOtherSide);
  p.order.wait_event(Program::kBlocking, 0);
  p.work(Program::kBlocking, {Program::reads(kBuffer, 64)}, 3);  // after the second write, not the first
  ASSERT_EQ(p.found.size(), 2u);
  EXPECT_EQ(p.found[1].earlier.site, 1u);
  EXPECT_EQ(p.found[1].later.site, 3u);
  // Once the first stream's write is ordered before a write, that write stands for both.
  p.order.record_event(1, Program::kSide);
  p.order.wait_event(Program::kBlocking, 1);
  p.work(Program::kBlocking, {Program::writes(kBuffer, 64)}, 4);
  p.work(Program::kBlocking, {Program::reads(kBuffer, 64)}, 5);
  EXPECT_EQ(p.found.size(), 2u);
  EXPECT_EQ(p.conflicts.remembered(), 1u);
}

// A read keeps the reads of other streams it is not ordered after, so that a later write races with each.
TEST(DeviceConflicts, ReadsOfTwoStreamsAreBothRememberedForALaterWrite) {
  Program p;
  p.work(Program::kSide, {Program::reads(kBuffer, 8)}, 1);
  p.work(Program::kOtherSide, {Program::reads(kBuffer, 8)}, 2);
  p.order.record_event(0, Program::kSide);
  p.order.wait_event(Program::kBlocking, 0);
  p.work(Program::kBlocking, {Program::writes(kBuffer, 8)}, 3);  // ordered after the first reader only
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].earlier.site, 2u);
}

// A synchronous free or a block handed out again: what touched it before is forgotten, and only that memory.
TEST(DeviceConflicts, ForgettingARangeForgetsOnlyIt) {
  Program p;
  p.work(Program::kSide, {Program::writes(kBuffer, 256)}, 1);
  p.conflicts.forget(kBuffer + 64, kBuffer + 128);
  p.work(Program::kOtherSide, {Program::writes(kBuffer + 64, 64)}, 2);
  EXPECT_TRUE(p.found.empty());
  p.work(Program::kOtherSide, {Program::writes(kBuffer + 127, 2)}, 3);
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].address, kBuffer + 128);
}

// The argument lookup: only words that point into a tracked allocation are accesses, read through a `const T*`.
TEST(KernelRanges, OnlyPointersIntoTrackedAllocationsAreAccessesReadOnesThroughConst) {
  const std::vector<DeviceAllocation> allocations{{kBuffer, kBytes}, {kOther, 64}};
  std::array<std::byte, 24> packed{};  // a struct argument: a size, a pointer, a pointer one past the end
  const std::uintptr_t size = 1024, inside = kOther + 8, past = kOther + 64;
  std::memcpy(packed.data(), &size, 8);
  std::memcpy(packed.data() + 8, &inside, 8);
  std::memcpy(packed.data() + 16, &past, 8);
  const auto input = word(kBuffer + 100);
  const std::array<KernelArgument, 2> arguments{KernelArgument{input, ArgumentAccess::ReadOnly}, KernelArgument{packed, ArgumentAccess::MayWrite}};
  const std::vector<DeviceRange> ranges = kernel_ranges(arguments, allocations, 4);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].begin, kBuffer + 100);
  EXPECT_EQ(ranges[0].end, kBuffer + 104);
  EXPECT_EQ(ranges[0].kind, DeviceAccessKind::Read);
  EXPECT_EQ(ranges[1].begin, inside);
  EXPECT_EQ(ranges[1].kind, DeviceAccessKind::MayWrite);
  // PyTorch's pointer array: the output first, the inputs after it.
  std::array<std::byte, 16> tensors{};
  const std::uintptr_t out = kBuffer + 8, in = kOther;
  std::memcpy(tensors.data(), &out, 8);
  std::memcpy(tensors.data() + 8, &in, 8);
  const std::array<KernelArgument, 1> elementwise{KernelArgument{tensors, ArgumentAccess::OutputFirst}};
  const std::vector<DeviceRange> touched = kernel_ranges(elementwise, allocations);
  ASSERT_EQ(touched.size(), 2u);
  EXPECT_EQ(touched[0].kind, DeviceAccessKind::Write);
  EXPECT_EQ(touched[1].kind, DeviceAccessKind::Read);
}

// Two kernels handed one buffer through pointers they may write, on unordered streams: both may only read, so
// no alarm (simpleStreams hands every stream's kernel one factor so). Beside a read or a write, it races.
TEST(DeviceConflicts, TwoMayWritesDoNotRaceAMayWriteAndAReadDo) {
  Program p;
  p.work(Program::kSide, {{kBuffer, kBuffer + 1, DeviceAccessKind::MayWrite}}, 1);
  p.work(Program::kOtherSide, {{kBuffer, kBuffer + 1, DeviceAccessKind::MayWrite}}, 2);
  EXPECT_TRUE(p.found.empty());
  p.work(Program::kBlocking, {Program::reads(kBuffer, 64)}, 3, "cuMemcpyDtoHAsync_v2");
  ASSERT_EQ(p.found.size(), 2u);
  EXPECT_EQ(p.found[0].earlier.kind, DeviceAccessKind::MayWrite);
  // A read ordered after the may-writes does not stand for them: a third may-write still races with nothing,
  // and a write races with the read.
  p.order.host_synchronizes_stream(Program::kSide);
  p.order.host_synchronizes_stream(Program::kOtherSide);
  p.conflicts.forget_known(p.order);
  p.work(Program::kSide, {Program::writes(kBuffer, 1)}, 4);
  ASSERT_EQ(p.found.size(), 3u);
  EXPECT_EQ(p.found[2].earlier.site, 3u);
}

// A read ordered after two may-writes stands for neither: a may-write races with a read, which the read ordered
// after it does not, so a later read that nothing orders after the may-writes still races with both.
TEST(DeviceConflicts, AReadOrderedAfterTwoMayWritesDoesNotStandForThem) {
  Program p;
  p.work(Program::kSide, {{kBuffer, kBuffer + 1, DeviceAccessKind::MayWrite}}, 1);
  p.work(Program::kOtherSide, {{kBuffer, kBuffer + 1, DeviceAccessKind::MayWrite}}, 2);
  p.order.record_event(0, Program::kSide);
  p.order.record_event(1, Program::kOtherSide);
  p.order.wait_event(Program::kBlocking, 0);
  p.order.wait_event(Program::kBlocking, 1);
  p.work(Program::kBlocking, {Program::reads(kBuffer, 1)}, 3);  // ordered after both
  EXPECT_TRUE(p.found.empty());
  constexpr StreamSlot kThird = 4;  // ordered after none of them (the legacy stream waits for the blocking one)
  p.order.add_stream(kThird, StreamKind::NonBlocking, 0);
  p.work(kThird, {Program::reads(kBuffer, 1)}, 4);
  ASSERT_EQ(p.found.size(), 2u);
  EXPECT_EQ(p.found[0].earlier.site, 1u);
  EXPECT_EQ(p.found[1].earlier.site, 2u);
  for (const DeviceConflict& c : p.found) EXPECT_EQ(c.later.site, 4u);
}

// Through the Checker, as the injected library plays a program: the stream lesson's race becomes a finding that
// names both streams, their kinds and the hazard; the guarded twin (an event between them) finds nothing; a
// synchronous free forgets what touched the memory.
TEST(CheckerDeviceWork, TheLegacyStreamLessonIsAFindingItsGuardIsNot) {
  NoProtection protection;
  Checker checker(protection);
  const StreamKey legacy{1, 0}, side{1, 0x55};
  checker.stream_created(side, StreamKind::NonBlocking);
  int sites = 0;
  auto site = [&] { return static_cast<SiteId>(++sites); };
  checker.device_work(legacy, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel, {Program::writes(kBuffer, 1)}, "fill"}, site);
  checker.copy_async(AsyncCopy{"cuMemcpyDtoHAsync", side, {MemoryKind::Device, {}}, {MemoryKind::PageableHost, {}}, 64,
                               0, CopyOrigin::StreamCall, GraphHostNodes::None,
                               {Program::reads(kBuffer, 64)}},
                     site);
  std::vector<Finding> races = checker.take_races();
  ASSERT_EQ(races.size(), 1u);
  ASSERT_TRUE(races[0].race);
  EXPECT_EQ(races[0].hazard(), "legacy-stream-nonblocking-consumer");
  EXPECT_EQ(races[0].race->earlier.kernel, "fill");
  EXPECT_EQ(races[0].race->earlier.stream, 0u);
  EXPECT_EQ(races[0].race->later.stream, 0x55u);
  EXPECT_EQ(races[0].race->later.work, DeviceWorkKind::Copy);
  EXPECT_EQ(races[0].copy.site, 1u);
  EXPECT_EQ(races[0].access_site, 2u);
  EXPECT_TRUE(checker.take_races().empty());  // taken once

  // The guard: an event recorded after the producer, waited for by the consumer's stream.
  checker.context_synchronized(1);
  checker.device_work(legacy, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel, {Program::writes(kBuffer, 1)}}, site);
  checker.event_created(7);
  checker.event_recorded(7, legacy);
  checker.stream_waited_event(side, 7);
  checker.device_work(side, DeviceWorkItem{"cuMemcpyDtoHAsync", DeviceWorkKind::Copy, {Program::reads(kBuffer, 64)}}, site);
  EXPECT_TRUE(checker.take_races().empty());

  // A synchronous free waits for the device: the next owner of the address races with nothing before it.
  checker.device_work(side, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel, {Program::writes(kOther, 1)}}, site);
  checker.device_memory_renewed(kOther, kOther + kBytes);
  checker.device_work(legacy, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel, {Program::writes(kOther, 1)}}, site);
  EXPECT_TRUE(checker.take_races().empty());
}

TEST(CheckerDeviceWork, AFreeAsyncWhileAnotherStreamUsesTheBlockIsTheAllocatorsHazard) {
  NoProtection protection;
  Checker checker(protection);
  const StreamKey a{1, 0xa}, b{1, 0xb};
  checker.stream_created(a, StreamKind::NonBlocking);
  checker.stream_created(b, StreamKind::NonBlocking);
  checker.device_work(b, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel, {Program::reads(kBuffer + 8, 1)}}, [] { return SiteId{1}; });
  checker.device_work(a, DeviceWorkItem{"cuMemFreeAsync", DeviceWorkKind::FreeAsync, {Program::writes(kBuffer, kBytes)}},
                      [] { return SiteId{2}; });
  const std::vector<Finding> races = checker.take_races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].hazard(), "stream-ordered-allocator-reuse");
  EXPECT_NE(races[0].what().find("frees the block"), std::string::npos);
}

// The signature: `const T*` reads; `T*`, a struct holding pointers, and anything of a kernel without C++ symbol
// may write.
TEST(KernelSignature, APointerToConstIsReadAnyOtherParameterMayBeWritten) {
  const KernelSignature plain = kernel_signature("_Z2k1PKfPfPKPKc");  // k1(float const*, float*, char const* const*)
  ASSERT_TRUE(plain.parameters_known);
  EXPECT_EQ(plain.name, "k1");
  using enum ArgumentAccess;
  EXPECT_EQ(plain.parameters, (std::vector<ArgumentAccess>{ReadOnly, MayWrite, MayWrite}));
  const KernelSignature templated = kernel_signature("_Z3addIfEvPKT_PS0_i");  // void add<float>(float const*, float*, int)
  EXPECT_EQ(templated.name, "add<float>");
  EXPECT_EQ(templated.parameters, (std::vector<ArgumentAccess>{ReadOnly, MayWrite, MayWrite}));
  // An array of char* in any kernel may be written; in PyTorch's elementwise kernels its first is the output.
  const KernelSignature packed = kernel_signature("_Z2k2N2at6detail5ArrayIPcLi3EEEi");
  EXPECT_EQ(packed.parameters, (std::vector<ArgumentAccess>{MayWrite, MayWrite}));
  // void at::native::vectorized_elementwise_kernel<4, Fill, at::detail::Array<char*, 1> >(int, Fill, at::detail::Array<char*, 1>)
  const KernelSignature fill = kernel_signature(
      "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_4FillENS_6detail5ArrayIPcLi1EEEEEviT0_T1_");
  EXPECT_EQ(fill.name, "at::native::vectorized_elementwise_kernel<4, at::native::Fill, at::detail::Array<char*, 1> >");
  EXPECT_EQ(fill.parameters, (std::vector<ArgumentAccess>{MayWrite, MayWrite, OutputFirst}));
  // Later PyTorch (2.11 among them) spells the array std::array<char*, N>.
  const KernelSignature later = kernel_signature(
      "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_4FillESt5arrayIPcLm1EEEEviT0_T1_");
  EXPECT_EQ(later.parameters, (std::vector<ArgumentAccess>{MayWrite, MayWrite, OutputFirst}));
}

TEST(KernelSignature, WithoutParameterTypesNothingIsReadOnly) {
  const KernelSignature c_kernel = kernel_signature("fill_kernel");
  EXPECT_FALSE(c_kernel.parameters_known);
  const KernelSignature none = kernel_signature("_Z4tickv");  // tick()
  EXPECT_TRUE(none.parameters_known);
  EXPECT_TRUE(none.parameters.empty());
  EXPECT_EQ(c_kernel.name, "fill_kernel");
  EXPECT_EQ(parameter_access(c_kernel, 0, 1), ArgumentAccess::MayWrite);
  // A layout with another count of parameters than the symbol names: no guess.
  const KernelSignature plain = kernel_signature("_Z2k1PKfPfPKPKc");
  EXPECT_EQ(parameter_access(plain, 0, 3), ArgumentAccess::ReadOnly);
  EXPECT_EQ(parameter_access(plain, 0, 4), ArgumentAccess::MayWrite);
}

}  // namespace
}  // namespace hazardlab::check
