// The device's half of a race on the CPU: device work played onto the order engine as the injected library would
// enqueue it, and the conflicts the rules leave. Each test stands for a rule of device_conflicts.hpp, and fails
// with that rule taken out.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

#include "checker/core/device_conflicts.hpp"

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
  EXPECT_EQ(p.found[0].earlier_site, 1u);
  EXPECT_EQ(p.found[0].later_site, 2u);
  EXPECT_EQ(p.found[0].later_api, "cuMemcpyDtoHAsync_v2");
  EXPECT_EQ(p.found[0].address, kBuffer);
  EXPECT_EQ(p.found[0].earlier_kind, DeviceAccessKind::Write);
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
  EXPECT_EQ(p.found[0].earlier_site, 1u);
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
    const std::array<KernelArgument, 1> arguments{KernelArgument{pointer, false}};
    p.work(stream, kernel_ranges(arguments, allocations, 4), 11);
    p.work(stream, {Program::reads(start, kChunk)}, 12, "cuMemcpyDtoHAsync_v2");
  }
  EXPECT_TRUE(p.found.empty());
  const auto pointer = word(kBuffer);
  const std::array<KernelArgument, 1> whole{KernelArgument{pointer, false}};
  p.work(Program::kOtherSide, kernel_ranges(whole, allocations, 4), 13);
  ASSERT_EQ(p.found.size(), 3u);  // with the first chunk's upload, its kernel and its readback, all on kSide
  for (const DeviceConflict& c : p.found) EXPECT_EQ(c.later_site, 13u);
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
  const std::array<KernelArgument, 2> arguments{KernelArgument{input, true}, KernelArgument{packed, false}};
  const std::vector<DeviceRange> ranges = kernel_ranges(arguments, allocations, 4);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].begin, kBuffer + 100);
  EXPECT_EQ(ranges[0].end, kBuffer + 104);
  EXPECT_EQ(ranges[0].kind, DeviceAccessKind::Read);
  EXPECT_EQ(ranges[1].begin, inside);
  EXPECT_EQ(ranges[1].kind, DeviceAccessKind::Write);
}

}  // namespace
}  // namespace hazardlab::check
