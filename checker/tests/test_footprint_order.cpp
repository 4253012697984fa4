// Kernels judged by their recorded footprints: device work played onto the order engine as the injected library
// enqueues it, with kernels whose footprints come later, as they do from the device. Each test stands for a rule of
// footprint_order.hpp and fails with that rule taken out.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "checker/core/footprint_order.hpp"

namespace hazardlab::check {
namespace {

using conformance::RuleSet;
using conformance::StreamKind;
using conformance::StreamWorkFacts;

constexpr std::uintptr_t kBuffer = 0x7f0000000000;
constexpr std::size_t kChunk = 1 << 20;

struct Program {
  OrderEngine order{RuleSet::all()};
  DeviceConflicts conflicts;
  FootprintOrder in_order{conflicts};
  std::vector<DeviceConflict> found;
  static constexpr StreamSlot kLegacy = 0, kFirst = 1, kSecond = 2, kThird = 3;
  Program() {
    order.add_stream(kLegacy, StreamKind::Legacy, 0);
    for (StreamSlot s : {kFirst, kSecond, kThird}) order.add_stream(s, StreamKind::NonBlocking, 0);
  }
  void take(std::vector<DeviceConflict> now) {
    for (DeviceConflict& c : now) found.push_back(std::move(c));
  }
  // Work on a stream; a kernel with a ticket has `ranges` from the rule until its footprint comes.
  void work(StreamSlot stream, std::vector<DeviceRange> ranges, SiteId site, FootprintTicket ticket = 0,
            DeviceWorkKind kind = DeviceWorkKind::Copy) {
    const WorkStamp stamp = order.enqueue(stream, StreamWorkFacts{.stream = order.stream_kind(stream)});
    const RangeSource source = kind == DeviceWorkKind::Kernel ? RangeSource::PointedElement : RangeSource::Named;
    take(in_order.enqueued(DeviceWork{stamp, order.latest_clock(stream), "call", site, ranges, kind, "k", source},
                           ticket));
  }
  void kernel(StreamSlot stream, std::vector<DeviceRange> rule, SiteId site, FootprintTicket ticket) {
    work(stream, std::move(rule), site, ticket, DeviceWorkKind::Kernel);
  }
  void synchronize(StreamSlot stream) {
    order.host_synchronizes_stream(stream);
    in_order.host_knows(order.host_clock());
  }
  static DeviceRange writes(std::uintptr_t begin, std::size_t bytes) {
    return {begin, begin + bytes, DeviceAccessKind::Write};
  }
  static DeviceRange reads(std::uintptr_t begin, std::size_t bytes) {
    return {begin, begin + bytes, DeviceAccessKind::Read};
  }
  static DeviceRange may_write(std::uintptr_t begin) { return {begin, begin + 1, DeviceAccessKind::MayWrite}; }
};

// NVIDIA's overlap sample: each stream uploads its chunk, runs a kernel handed the base pointer and the chunk's
// offset, and downloads the chunk. The rule puts every kernel on chunk 0 (false alarms); the recorded footprints
// put each on its own chunk: clean.
TEST(FootprintOrder, TheOverlapSampleIsCleanByItsRecordedFootprints) {
  Program p;
  for (StreamSlot s : {Program::kFirst, Program::kSecond, Program::kThird}) {
    const std::uintptr_t chunk = kBuffer + (s - 1) * kChunk;
    p.work(s, {Program::writes(chunk, kChunk)}, 10 * s);
    p.kernel(s, {Program::may_write(kBuffer)}, 10 * s + 1, s);
    p.work(s, {Program::reads(chunk, kChunk)}, 10 * s + 2);
  }
  EXPECT_TRUE(p.found.empty()) << "nothing is judged while the first kernel's footprint is awaited";
  EXPECT_EQ(p.in_order.waiting(), 8u) << "all but the first upload, judged before any kernel";
  for (StreamSlot s : {Program::kFirst, Program::kSecond, Program::kThird}) {
    const std::uintptr_t chunk = kBuffer + (s - 1) * kChunk;
    p.take(p.in_order.footprint(s, std::vector<DeviceRange>{Program::reads(chunk, kChunk), Program::writes(chunk, kChunk)}));
  }
  EXPECT_TRUE(p.found.empty());
  EXPECT_EQ(p.in_order.waiting(), 0u);
}

// The same program judged by the rule (no footprint came): the kernels' first byte is chunk 0, which another
// stream uploads, so the rule raises what it raised before footprints, and says it judged.
TEST(FootprintOrder, WithoutAFootprintTheRuleJudgesAndSaysSo) {
  Program p;
  p.work(Program::kFirst, {Program::writes(kBuffer, kChunk)}, 1);
  p.kernel(Program::kSecond, {Program::may_write(kBuffer)}, 2, 7);
  p.take(p.in_order.footprint(7, std::nullopt));
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].later.source, RangeSource::PointedElement);
  EXPECT_EQ(p.found[0].earlier.source, RangeSource::Named);
}

// A race the rule misses: a kernel handed the start of a buffer writes the part another stream reads.
TEST(FootprintOrder, AKernelReachingPastItsPointerIsFoundByItsFootprint) {
  Program p;
  p.kernel(Program::kFirst, {Program::may_write(kBuffer)}, 1, 1);
  p.work(Program::kSecond, {Program::reads(kBuffer + kChunk, kChunk)}, 2);
  p.take(p.in_order.footprint(1, std::vector<DeviceRange>{Program::writes(kBuffer, 2 * kChunk)}));
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].earlier.site, 1u);
  EXPECT_EQ(p.found[0].earlier.source, RangeSource::Recorded);
  EXPECT_EQ(p.found[0].earlier.kind, DeviceAccessKind::Write);
  EXPECT_EQ(p.found[0].address, kBuffer + kChunk);
}

// Two kernels that may write one buffer never race by the rule; by their footprints, the one that writes races with
// the one that reads (CuPy's `a += 1` on one stream and `a.sum()` on another).
TEST(FootprintOrder, TwoKernelsHandedOneBufferRaceWhenOneWritesWhatTheOtherReads) {
  Program p;
  p.kernel(Program::kFirst, {Program::may_write(kBuffer)}, 1, 1);
  p.kernel(Program::kSecond, {Program::may_write(kBuffer)}, 2, 2);
  p.take(p.in_order.footprint(2, std::vector<DeviceRange>{Program::reads(kBuffer, kChunk)}));
  EXPECT_TRUE(p.found.empty()) << "the later kernel waits for the earlier one's footprint";
  p.take(p.in_order.footprint(1, std::vector<DeviceRange>{Program::reads(kBuffer, kChunk), Program::writes(kBuffer, kChunk)}));
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].earlier.site, 1u);
  EXPECT_EQ(p.found[0].later.site, 2u);
}

// A kernel that only reads through a plain pointer, beside a copy that reads the same buffer: no race.
TEST(FootprintOrder, AKernelThatOnlyReadsBesideACopyThatReadsDoesNotRace) {
  Program p;
  p.kernel(Program::kFirst, {Program::may_write(kBuffer)}, 1, 1);
  p.work(Program::kSecond, {Program::reads(kBuffer, kChunk)}, 2);
  p.take(p.in_order.footprint(1, std::vector<DeviceRange>{Program::reads(kBuffer, kChunk)}));
  EXPECT_TRUE(p.found.empty());
}

// Work enqueued before a host synchronization can race with the work that synchronization let go: the
// forgetting waits its turn behind the items enqueued before it.
TEST(FootprintOrder, AHostSynchronizationForgetsOnlyOnceTheWorkBeforeItWasJudged) {
  Program p;
  p.work(Program::kFirst, {Program::writes(kBuffer, kChunk)}, 1);   // judged at once
  p.kernel(Program::kSecond, {Program::may_write(kBuffer + 4 * kChunk)}, 2, 2);
  p.work(Program::kThird, {Program::reads(kBuffer, kChunk)}, 3);    // held behind the kernel
  p.synchronize(Program::kFirst);                                    // the host now knows the write
  p.take(p.in_order.footprint(2, std::vector<DeviceRange>{Program::writes(kBuffer + 4 * kChunk, 1)}));
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].earlier.site, 1u);
  EXPECT_EQ(p.found[0].later.site, 3u);
}

// Each synchronization forgets what the host knew at its moment, not what it knows when its turn comes: an item
// enqueued between two synchronizations still meets the work only the second one let go.
TEST(FootprintOrder, ASynchronizationForgetsWhatTheHostKnewThenNotLater) {
  Program p;
  p.work(Program::kFirst, {Program::writes(kBuffer, kChunk)}, 1);
  p.kernel(Program::kSecond, {Program::may_write(kBuffer + 4 * kChunk)}, 2, 2);
  p.synchronize(Program::kThird);                                   // knows nothing of the write
  p.work(Program::kThird, {Program::reads(kBuffer, kChunk)}, 3);
  p.synchronize(Program::kFirst);                                   // knows the write
  p.take(p.in_order.footprint(2, std::vector<DeviceRange>{Program::writes(kBuffer + 4 * kChunk, 1)}));
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].later.site, 3u);
}

// Memory renewed (a synchronous free) while work waits: forgotten in its turn, after the work enqueued before.
TEST(FootprintOrder, MemoryRenewedIsForgottenInItsTurn) {
  Program p;
  p.work(Program::kFirst, {Program::writes(kBuffer, kChunk)}, 1);
  p.kernel(Program::kSecond, {Program::may_write(kBuffer + 4 * kChunk)}, 2, 2);
  p.work(Program::kThird, {Program::reads(kBuffer, kChunk)}, 3);
  p.in_order.forget(kBuffer, kBuffer + kChunk);
  p.work(Program::kThird, {Program::reads(kBuffer, kChunk)}, 4);  // after the renewal: nothing to race with
  p.take(p.in_order.footprint(2, std::vector<DeviceRange>{Program::writes(kBuffer + 4 * kChunk, 1)}));
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].later.site, 3u);
}

// At the end, footprints that never came are given up: the rule judges those kernels, and nothing stays held.
TEST(FootprintOrder, GivingUpLetsTheRuleJudgeEveryKernelStillWaiting) {
  Program p;
  p.kernel(Program::kFirst, {Program::writes(kBuffer, 1)}, 1, 1);
  p.work(Program::kSecond, {Program::reads(kBuffer, kChunk)}, 2);
  p.take(p.in_order.give_up_waiting());
  ASSERT_EQ(p.found.size(), 1u);
  EXPECT_EQ(p.found[0].earlier.source, RangeSource::PointedElement);
  EXPECT_EQ(p.in_order.waiting(), 0u);
}

// A footprint is asked for only once the host knows its launch ran: before, the device may still be writing it.
TEST(FootprintOrder, OnlyTheFootprintsOfLaunchesTheHostKnowsRanAreAskedFor) {
  Program p;
  p.kernel(Program::kFirst, {Program::may_write(kBuffer)}, 1, 11);
  p.kernel(Program::kSecond, {Program::may_write(kBuffer)}, 2, 12);
  EXPECT_TRUE(p.in_order.awaited_known(p.order.host_clock()).empty());
  p.synchronize(Program::kSecond);
  EXPECT_EQ(p.in_order.awaited_known(p.order.host_clock()), std::vector<FootprintTicket>{12});
  p.synchronize(Program::kFirst);
  EXPECT_EQ(p.in_order.awaited_known(p.order.host_clock()), (std::vector<FootprintTicket>{11, 12}));
}

}  // namespace
}  // namespace hazardlab::check
