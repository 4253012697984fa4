// Schedule-aware predictions on hand-written programs: gates and drains make races definite, and a
// mutant model that forgets a rule predicts something the GPU (simulated here by the full model's
// prediction) contradicts.
#include <gtest/gtest.h>

#include "conformance/check/compare.hpp"
#include "conformance/schedule/predict.hpp"
#include "conformance/tests/simulated_gpu.hpp"

namespace hazardlab::conformance {
namespace {

using enum BufferKind;

// What the GPU shows when the full model is right: each read holds its values, each drain finds what
// the model says finished, each call waits as predicted.
using testing::as_predicted;

bool refuted(const Program& p, Rule rule) {
  const Observation gpu = as_predicted(predict(p));
  EXPECT_TRUE(disagreements(p, predict(p), gpu).empty());
  return !disagreements(p, predict(p, RuleSet::all().without(rule)), gpu).empty();
}

TEST(Schedule, DrainFindsWorkBehindAClosedGateHeld) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const StreamId s = p.add_stream(StreamKind::NonBlocking);
  p.gate_close(s, GateStyle::SpinKernel);
  const CommandIndex kernel = p.kernel({}, {d}, s);
  const CommandIndex drain = p.drain();
  const Prediction full = predict(p);
  EXPECT_TRUE(full.drains.at(drain).held.contains(kernel));
  EXPECT_FALSE(full.drains.at(drain).done.contains(kernel));
  EXPECT_TRUE(refuted(p, Rule::kStreamOrder));
}

TEST(Schedule, HostRewriteWhileGatedIsWhatAPinnedCopyTakes) {
  Program p;
  const BufferId h = p.add_buffer(HostPinned, "h");
  const BufferId d = p.add_buffer(Device, "d");
  const StreamId s = p.add_stream(StreamKind::NonBlocking);
  const GateId g = p.gate_close(s, GateStyle::SpinKernel);
  p.memcpy_async(d, h, s);
  const CommandIndex rewrite = p.host_write(h);
  p.gate_open(g);
  p.device_synchronize();
  const CommandIndex readback = p.host_read(d);
  // Without gates the copy races with the rewrite; with the gate closed during the rewrite it is definite.
  EXPECT_EQ(predict(p).find(readback, d)->values, std::set<ValueId>{rewrite});
  EXPECT_EQ(predict(p).find(readback, d)->racy_values, (std::set<ValueId>{initial_value(h), rewrite}));
  EXPECT_TRUE(refuted(p, Rule::kAsyncCopyPinnedOnStream));
}

TEST(Schedule, ValuesFollowCopies) {
  Program p;
  const BufferId h1 = p.add_buffer(HostPageable, "h1");
  const BufferId d = p.add_buffer(Device, "d");
  const BufferId h2 = p.add_buffer(HostPinned, "h2");
  const CommandIndex write = p.host_write(h1);
  p.memcpy(d, h1);
  p.memcpy(h2, d);
  const CommandIndex read = p.host_read(h2);
  EXPECT_EQ(predict(p).find(read, h2)->values, std::set<ValueId>{write});
}

TEST(Schedule, MemsetBehindAGateIsNotSeenByAnotherStream) {
  Program p;
  const BufferId d = p.add_buffer(Device, "d");
  const StreamId s1 = p.add_stream(StreamKind::NonBlocking);
  const StreamId s2 = p.add_stream(StreamKind::NonBlocking);
  p.gate_close(s1, GateStyle::SpinKernel);
  p.memset_async(d, s1);
  const CommandIndex reader = p.kernel({d}, {}, s2);
  p.drain();
  EXPECT_EQ(predict(p).find(reader, d)->values, std::set<ValueId>{initial_value(d)});
  EXPECT_TRUE(refuted(p, Rule::kMemsetAsyncOnStream));
}

TEST(Schedule, SynchronizeOnAGatedStreamWaits) {
  Program p;
  const StreamId s = p.add_stream(StreamKind::NonBlocking);
  p.gate_close(s, GateStyle::SpinKernel);
  p.kernel({}, {}, s);
  const CommandIndex sync = p.stream_synchronize(s);
  p.set_watchdog_opened(sync);
  EXPECT_EQ(predict(p).waits.at(sync), Wait::Waits);
  EXPECT_TRUE(refuted(p, Rule::kHostSynchronization));
}

TEST(Schedule, EventQueryBehindAClosedGateIsNotReady) {
  Program p;
  const StreamId s = p.add_stream(StreamKind::Blocking);
  const EventId e = p.add_event();
  p.gate_close(kLegacyStream, GateStyle::HostFunction);
  p.kernel({}, {}, s);  // waits for the legacy stream (rule 2)
  p.event_record(e, s);
  p.drain();
  const CommandIndex query = p.event_query(e, false);
  EXPECT_EQ(predict(p).queries.at(query), QueryAnswer::NotReady);
  EXPECT_TRUE(refuted(p, Rule::kLegacyStreamImplicitSync));
}

TEST(Schedule, AWrongTagIsAViolation) {
  Program p;
  const BufferId h = p.add_buffer(HostPinned, "h");
  const CommandIndex read = p.host_read(h);
  Observation o;
  o.reads[{read, h}] = {kUnknownValue};
  EXPECT_EQ(disagreements(p, predict(p), o).size(), 1U);
}

}  // namespace
}  // namespace hazardlab::conformance
