// The happens-before model of CUDA's documented ordering rules: for each rule, a program whose read is
// ordered and one whose read races, and proof that every rule changes at least one answer.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "conformance/model/observed_writes.hpp"
#include "conformance/model/rules.hpp"
#include "rule_programs.hpp"

namespace hazardlab::conformance::testing {
namespace {

std::string names(const std::set<WriteId>& writes) {
  std::string text = "{";
  for (WriteId w : writes) text += (w == kInitialValue ? std::string("initial") : "#" + std::to_string(w)) + " ";
  return text + "}";
}

std::set<WriteId> allowed(const RuleProgram& p, const RuleSet& rules) {
  return find_read(analyze(p.program, rules), p.reader, p.buffer).allowed_writes;
}

// Checks the named program's read against its expectation with every rule on.
void expect_expected(std::string_view name) {
  const RuleProgram p = rule_program(name);
  const std::vector<ReadResult> results = analyze(p.program);
  const ReadResult& result = find_read(results, p.reader, p.buffer);
  EXPECT_EQ(result.allowed_writes, p.expected)
      << result.reader << ": got " << names(result.allowed_writes) << ", expected " << names(p.expected);
  EXPECT_EQ(result.racy, p.expected.size() > 1);
}

TEST(StreamOrder, SameStreamKernelSeesEarlierWrite) { expect_expected("SameStreamKernelSeesEarlierWrite"); }
TEST(StreamOrder, KernelsOnTwoCreatedStreamsRace) { expect_expected("KernelsOnTwoCreatedStreamsRace"); }

TEST(LegacyStream, BlockingStreamWaitsForLegacyWork) { expect_expected("BlockingStreamWaitsForLegacyWork"); }
TEST(LegacyStream, LegacyWorkWaitsForBlockingStream) { expect_expected("LegacyWorkWaitsForBlockingStream"); }
TEST(LegacyStream, NonBlockingStreamDoesNotWait) { expect_expected("NonBlockingStreamDoesNotWait"); }
TEST(LegacyStream, LegacyDoesNotWaitForNonBlocking) { expect_expected("LegacyDoesNotWaitForNonBlocking"); }

TEST(EventRecordWait, WaitAfterRecordOrdersConsumer) { expect_expected("WaitAfterRecordOrdersConsumer"); }
TEST(EventRecordWait, WaitBeforeRecordWaitsForNothing) { expect_expected("WaitBeforeRecordWaitsForNothing"); }
TEST(EventRecordWait, RerecordAfterWaitHasNoEffect) { expect_expected("RerecordAfterWaitHasNoEffect"); }

TEST(HostSynchronization, StreamSynchronizeOrdersHostRead) { expect_expected("StreamSynchronizeOrdersHostRead"); }
TEST(HostSynchronization, EventSynchronizeOrdersHostRead) { expect_expected("EventSynchronizeOrdersHostRead"); }
TEST(HostSynchronization, DeviceSynchronizeOrdersHostRead) { expect_expected("DeviceSynchronizeOrdersHostRead"); }
TEST(HostSynchronization, EventQueryObservedCompleteOrdersHostRead) {
  expect_expected("EventQueryObservedCompleteOrdersHostRead");
}
TEST(HostSynchronization, SynchronizingAnotherStreamDoesNotOrder) {
  expect_expected("SynchronizingAnotherStreamDoesNotOrder");
}
TEST(HostSynchronization, EventQueryNotReadyDoesNotOrder) { expect_expected("EventQueryNotReadyDoesNotOrder"); }

TEST(AsyncCopyPinned, HostRewriteOfPinnedSourceRacesWithCopy) {
  expect_expected("HostRewriteOfPinnedSourceRacesWithCopy");
}
TEST(AsyncCopyPinned, EventSynchronizeBeforeRewriteProtectsPinnedSource) {
  expect_expected("EventSynchronizeBeforeRewriteProtectsPinnedSource");
}
TEST(AsyncCopyPinned, HostReadOfPinnedDestinationRacesWithCopy) {
  expect_expected("HostReadOfPinnedDestinationRacesWithCopy");
}

TEST(AsyncCopyPageableH2D, PageableSourceIsStagedBeforeReturn) {
  expect_expected("PageableSourceIsStagedBeforeReturn");
}
TEST(AsyncCopyPageableH2D, PageableCopyStillWritesDeviceOnStream) {
  expect_expected("PageableCopyStillWritesDeviceOnStream");
}

TEST(AsyncCopyPageableD2H, HostReadOfPageableDestinationRacesWithCopy) {
  expect_expected("HostReadOfPageableDestinationRacesWithCopy");
}
TEST(AsyncCopyPageableD2H, StreamSynchronizeOrdersPageableDestination) {
  expect_expected("StreamSynchronizeOrdersPageableDestination");
}

TEST(SyncMemcpy, DeviceToPinnedReturnsAfterCopy) { expect_expected("DeviceToPinnedReturnsAfterCopy"); }
TEST(SyncMemcpy, DeviceToPageableReturnsAfterCopy) { expect_expected("DeviceToPageableReturnsAfterCopy"); }
TEST(SyncMemcpy, PageableToDeviceSynchronizesLegacyStreamFirst) {
  expect_expected("PageableToDeviceSynchronizesLegacyStreamFirst");
}
TEST(SyncMemcpy, PageableToDeviceSyncWaitsForBlockingStream) {
  expect_expected("PageableToDeviceSyncWaitsForBlockingStream");
}
TEST(SyncMemcpy, PageableToDeviceSyncDoesNotWaitForNonBlockingStream) {
  expect_expected("PageableToDeviceSyncDoesNotWaitForNonBlockingStream");
}
TEST(SyncMemcpy, PageableToDeviceIsNotAFenceForNonBlockingStream) {
  expect_expected("PageableToDeviceIsNotAFenceForNonBlockingStream");
}

TEST(HostFunction, HostFunctionSeesEarlierCopyOnItsStream) {
  expect_expected("HostFunctionSeesEarlierCopyOnItsStream");
}
TEST(HostFunction, LaterCopyWaitsForHostFunction) { expect_expected("LaterCopyWaitsForHostFunction"); }
TEST(HostFunction, HostFunctionOnAnotherStreamRaces) { expect_expected("HostFunctionOnAnotherStreamRaces"); }

TEST(MemsetAsync, CopyOnSameStreamSeesMemset) { expect_expected("CopyOnSameStreamSeesMemset"); }
TEST(MemsetAsync, LegacyMemsetRacesWithNonBlockingCopy) { expect_expected("LegacyMemsetRacesWithNonBlockingCopy"); }

// Every program above has a test, and every rule has an ordered and a racy program.
TEST(RulePrograms, EveryRuleHasAnOrderedAndARacyProgram) {
  for (const RuleInfo& info : all_rules()) {
    bool ordered = false;
    bool racy = false;
    for (const RuleProgram& p : all_rule_programs()) {
      if (p.rule != info.rule) continue;
      (p.expected.size() == 1 ? ordered : racy) = true;
    }
    EXPECT_TRUE(ordered) << info.name << " has no ordered program";
    EXPECT_TRUE(racy) << info.name << " has no racy program";
  }
}

// The model has teeth: with any one rule switched off, at least one of that rule's programs gets a
// different answer, so no rule is dead weight and a mutant model is caught.
TEST(Mutants, EveryRuleChangesAnAnswerWhenRemoved) {
  for (const RuleInfo& info : all_rules()) {
    const RuleSet mutant = RuleSet::all().without(info.rule);
    std::string caught_by;
    for (const RuleProgram& p : all_rule_programs())
      if (p.rule == info.rule && allowed(p, mutant) != allowed(p, RuleSet::all())) caught_by += p.name + " ";
    EXPECT_FALSE(caught_by.empty()) << "removing " << info.name << " changes no answer";
  }
}

TEST(Rules, EveryRuleHasANameAndACitation) {
  ASSERT_EQ(all_rules().size(), kRuleCount);
  for (std::size_t i = 0; i < kRuleCount; ++i) {
    const RuleInfo& info = all_rules()[i];
    EXPECT_EQ(static_cast<std::size_t>(info.rule), i);
    EXPECT_FALSE(info.name.empty());
    EXPECT_FALSE(info.summary.empty());
    EXPECT_NE(info.citation.find("CUDA"), std::string_view::npos) << info.name;
  }
}

TEST(Analysis, ReadWithNoWriteSeesOnlyTheInitialValue) {
  Program p;
  const BufferId h = p.add_buffer(BufferKind::HostPageable, "h");
  const CommandIndex read = p.host_read(h);
  const std::vector<ReadResult> results = analyze(p);
  const ReadResult& r = find_read(results, read, h);
  EXPECT_EQ(r.allowed_writes, std::set<WriteId>{kInitialValue});
  EXPECT_FALSE(r.racy);
}

TEST(Analysis, TwoHostThreadsWithoutSynchronizationRace) {
  Program p;
  const BufferId h = p.add_buffer(BufferKind::HostPageable, "h");
  const CommandIndex write = p.host_write(h, 0);
  const CommandIndex read = p.host_read(h, 1);
  EXPECT_EQ(find_read(analyze(p), read, h).allowed_writes, (std::set<WriteId>{kInitialValue, write}));
}

TEST(Analysis, HostToHostCopyIsRejectedAsNotModelled) {
  Program p;
  const BufferId a = p.add_buffer(BufferKind::HostPinned, "a");
  const BufferId b = p.add_buffer(BufferKind::HostPageable, "b");
  p.memcpy_async(a, b, kLegacyStream);
  EXPECT_THROW(analyze(p), std::invalid_argument);
}

}  // namespace
}  // namespace hazardlab::conformance::testing
