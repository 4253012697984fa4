// Programs that an H200 (CUDA 13 driver) reported as disagreeing with the model, written by hand with the
// prediction the model must make, and the checks that let the next run tell what a disagreement was.
#include <gtest/gtest.h>

#include <string>

#include "conformance/check/compare.hpp"
#include "conformance/check/tags.hpp"
#include "conformance/schedule/predict.hpp"
#include "conformance/tests/simulated_gpu.hpp"

namespace hazardlab::conformance {
namespace {

using enum BufferKind;

using testing::as_predicted;

// The generator's buffers: pinned0, pageable0, device0, pinned1, pageable1, device1 (ids 0 to 5).
struct Buffers {
  BufferId pinned0, pageable0, device0, pinned1, pageable1, device1;
};

Buffers add_buffers(Program& p) {
  Buffers b{};
  b.pinned0 = p.add_buffer(HostPinned, "pinned0");
  b.pageable0 = p.add_buffer(HostPageable, "pageable0");
  b.device0 = p.add_buffer(Device, "device0");
  b.pinned1 = p.add_buffer(HostPinned, "pinned1");
  b.pageable1 = p.add_buffer(HostPageable, "pageable1");
  b.device1 = p.add_buffer(Device, "device1");
  return b;
}

// A gate closed on s1, then cudaMemcpy(dst, src) while it is closed: does the call wait for the gate?
Wait sync_memcpy_wait(StreamKind s1_kind, BufferKind dst_kind, BufferKind src_kind) {
  Program p;
  const BufferId dst = p.add_buffer(dst_kind, "dst");
  const BufferId src = p.add_buffer(src_kind, "src");
  const StreamId s1 = s1_kind == StreamKind::Legacy ? kLegacyStream : p.add_stream(s1_kind);
  p.gate_close(s1, GateStyle::SpinKernel);
  const CommandIndex copy = p.memcpy(dst, src);
  return predict(p).waits.at(copy);
}

// Seed 1299338861 (quick profile, both GPUs): the smallest program, as the GPU ran it (the call waited,
// so the watchdog opened the gate).
TEST(GpuFindings, PageableToDeviceMemcpyWaitsForAGatedBlockingStream) {
  Program p;
  const Buffers b = add_buffers(p);
  const StreamId s1 = p.add_stream(StreamKind::Blocking);
  p.host_write(b.pinned0);
  p.host_write(b.pinned0);
  const GateId gate = p.gate_close(s1, GateStyle::SpinKernel);
  const CommandIndex copy = p.memcpy(b.device0, b.pageable0);
  p.set_watchdog_opened(copy);
  p.gate_open(gate);
  p.device_synchronize();
  for (BufferId id = 0; id < 6; ++id) p.host_read(id);

  const Prediction full = predict(p);
  EXPECT_EQ(full.waits.at(copy), Wait::Waits);
  Observation gpu = as_predicted(full);
  gpu.blocked[copy] = true;
  EXPECT_TRUE(disagreements(p, full, gpu).empty());
  // The model that forgets the legacy stream's implicit synchronization expects the call not to wait.
  EXPECT_FALSE(disagreements(p, predict(p, RuleSet::all().without(Rule::kLegacyStreamImplicitSync)), gpu).empty());
}

TEST(GpuFindings, EverySyncMemcpyDirectionWaitsForAGatedBlockingStreamOnlyWhenItSynchronizesTheHost) {
  // Pageable to device: the stream sync before staging. Device to host and pinned to device: the call returns
  // after the copy, which is legacy-stream work. Device to device: no host-side synchronization.
  EXPECT_EQ(sync_memcpy_wait(StreamKind::Blocking, Device, HostPageable), Wait::Waits);
  EXPECT_EQ(sync_memcpy_wait(StreamKind::Blocking, Device, HostPinned), Wait::Waits);
  EXPECT_EQ(sync_memcpy_wait(StreamKind::Blocking, HostPageable, Device), Wait::Waits);
  EXPECT_EQ(sync_memcpy_wait(StreamKind::Blocking, HostPinned, Device), Wait::Waits);
  EXPECT_EQ(sync_memcpy_wait(StreamKind::Blocking, Device, Device), Wait::CannotWait);
  // A non-blocking stream is exempt from the legacy stream's synchronization: no direction waits for it.
  for (BufferKind dst : {Device, HostPinned, HostPageable})
    for (BufferKind src : {Device, HostPinned, HostPageable})
      if (is_host_buffer(dst) != is_host_buffer(src) || (dst == Device && src == Device)) {
        EXPECT_EQ(sync_memcpy_wait(StreamKind::NonBlocking, dst, src), Wait::CannotWait);
      }
  // A gate on the legacy stream itself: the same answers as for a blocking stream.
  EXPECT_EQ(sync_memcpy_wait(StreamKind::Legacy, Device, HostPageable), Wait::Waits);
  EXPECT_EQ(sync_memcpy_wait(StreamKind::Legacy, HostPinned, Device), Wait::Waits);
  EXPECT_EQ(sync_memcpy_wait(StreamKind::Legacy, Device, Device), Wait::CannotWait);
}

TEST(GpuFindings, PageableAsyncCopiesMayWaitButDoNotHaveTo) {
  for (StreamKind kind : {StreamKind::Blocking, StreamKind::NonBlocking})
    for (bool to_device : {true, false}) {
      Program p;
      const BufferId d = p.add_buffer(Device, "d");
      const BufferId h = p.add_buffer(HostPageable, "h");
      const StreamId s1 = p.add_stream(kind);
      p.gate_close(s1, GateStyle::SpinKernel);
      const CommandIndex copy = to_device ? p.memcpy_async(d, h, kLegacyStream) : p.memcpy_async(h, d, kLegacyStream);
      EXPECT_EQ(predict(p).waits.at(copy), Wait::MayWait);
    }
}

// Seed 2742678147 (full profile, GPU 0), cut to what matters: a memset of pinned1 behind a gate on a
// blocking stream, then a copy of pinned1 to device0 on the legacy stream, which waits for it (rule 2).
struct MemsetThenLegacyCopy {
  Program p;
  Buffers b{};
  CommandIndex memset = 0, copy = 0, open = 0, readback = 0;
};

MemsetThenLegacyCopy memset_then_legacy_copy() {
  MemsetThenLegacyCopy m;
  m.b = add_buffers(m.p);
  const StreamId s1 = m.p.add_stream(StreamKind::Blocking);
  m.p.add_stream(StreamKind::Blocking);
  for (int i = 0; i < 9; ++i) m.p.host_write(m.b.pinned0);
  const GateId gate = m.p.gate_close(s1, GateStyle::SpinKernel);
  m.p.host_write(m.b.pinned0);
  m.memset = m.p.memset_async(m.b.pinned1, s1);
  m.p.host_write(m.b.pinned0);
  m.p.host_write(m.b.pinned0);
  m.copy = m.p.memcpy_async(m.b.device0, m.b.pinned1, kLegacyStream);
  m.open = m.p.gate_open(gate);
  m.p.device_synchronize();
  for (BufferId id = 0; id < 6; ++id) {
    const CommandIndex read = m.p.host_read(id);
    if (id == m.b.device0) m.readback = read;
  }
  return m;
}

TEST(GpuFindings, LegacyCopyOfAPinnedBufferTakesTheBlockingStreamsMemset) {
  const MemsetThenLegacyCopy m = memset_then_legacy_copy();
  ASSERT_EQ(m.memset, 11U);
  ASSERT_EQ(m.copy, 14U);
  ASSERT_EQ(m.readback, 19U);
  const Prediction full = predict(m.p);
  EXPECT_EQ(full.find(m.readback, m.b.device0)->values, std::set<ValueId>{m.memset});
  EXPECT_EQ(full.find(m.readback, m.b.pinned1), nullptr);
  // Both are held behind the gate until it opens.
  EXPECT_TRUE(full.held_at_gate_open.at(m.open).contains(m.memset));
  EXPECT_TRUE(full.held_at_gate_open.at(m.open).contains(m.copy));
}

TEST(GpuFindings, AWrongValueIsReportedWithTheRawWordsItHeld) {
  const MemsetThenLegacyCopy m = memset_then_legacy_copy();
  const Prediction full = predict(m.p);
  Observation gpu = as_predicted(full);
  const std::uint32_t nonce = 0x5A3;
  const Tags tags{m.p, nonce};
  gpu.reads[{m.readback, m.b.device0}] = {tags.decode(tags.initial(m.b.pinned1))};
  gpu.raw_words[{m.readback, m.b.device0}] = {tags.initial(m.b.pinned1)};
  const std::vector<std::string> found = disagreements(m.p, full, gpu);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_NE(found[0].find("saw {initial(buffer 3)}, allowed {#11}"), std::string::npos) << found[0];
  EXPECT_NE(found[0].find("raw words a05a3803"), std::string::npos) << found[0];
}

TEST(GpuFindings, WorkFinishedBeforeItsGateOpenedIsAViolation) {
  const MemsetThenLegacyCopy m = memset_then_legacy_copy();
  const Prediction full = predict(m.p);
  Observation gpu = as_predicted(full);
  gpu.finished_at_gate_open[m.open] = {};
  EXPECT_TRUE(disagreements(m.p, full, gpu).empty());
  // The copy ran while the gate held the memset it must wait for: the legacy stream did not wait.
  gpu.finished_at_gate_open[m.open] = {m.copy};
  const std::vector<std::string> found = disagreements(m.p, full, gpu);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0], "gate open #15: #14 finished although behind a gate still closed");
  // The model without rule 2 lets the copy run while the gate is closed: this is what it predicts there.
  EXPECT_FALSE(predict(m.p, RuleSet::all().without(Rule::kLegacyStreamImplicitSync))
                   .held_at_gate_open.at(m.open)
                   .contains(m.copy));
}

// The deviations seen on GPUs (rules.hpp): the documented model rejects what the GPU did, the model with
// the deviation allows it, and the combined check accepts it; a value neither allows stays a violation.
TEST(GpuFindings, TheSmallPinnedUploadDeviationExplainsTheLegacyCopyThatDidNotWait) {
  const MemsetThenLegacyCopy m = memset_then_legacy_copy();
  const Prediction documented = predict(m.p);
  const Prediction seen = predict(m.p, RuleSet::all().with(Deviation::kSmallPinnedUploadSkipsImplicitSync));
  Observation gpu = as_predicted(documented);
  // What the H200 and the H100 did: the copy took pinned1's earlier contents and ran before the gate opened.
  gpu.reads[{m.readback, m.b.device0}] = {initial_value(m.b.pinned1)};
  gpu.finished_at_gate_open[m.open] = {m.copy};
  EXPECT_EQ(disagreements(m.p, documented, gpu).size(), 2U);
  EXPECT_TRUE(disagreements(m.p, seen, gpu).empty());
  EXPECT_TRUE(disagreements(m.p, documented, predict(m.p, RuleSet::all().with_seen_deviations()), gpu).empty());
  // The deviation does not excuse a value no write made.
  gpu.reads[{m.readback, m.b.device0}] = {kUnknownValue};
  EXPECT_EQ(disagreements(m.p, documented, seen, gpu).size(), 1U);
}

// The deviation exempts uploads up to the threshold the RuleSet carries: the GPU's measured one, else the
// 24 KiB seen before. A GPU measured to obey from below the programs' upload size explains nothing by it.
TEST(GpuFindings, TheSmallPinnedUploadDeviationFollowsTheMeasuredThreshold) {
  const MemsetThenLegacyCopy m = memset_then_legacy_copy();
  EXPECT_EQ(RuleSet::all().small_upload_bytes(), kSmallUploadBytes);
  EXPECT_EQ(RuleSet::all().with_seen_deviations().with_small_upload_bytes(25000).small_upload_bytes(), 25000U);
  const Prediction documented = predict(m.p);
  Observation gpu = as_predicted(documented);
  gpu.reads[{m.readback, m.b.device0}] = {initial_value(m.b.pinned1)};
  gpu.finished_at_gate_open[m.open] = {m.copy};
  const RuleSet deviation = RuleSet::all().with(Deviation::kSmallPinnedUploadSkipsImplicitSync);
  for (const std::size_t threshold : {kBufferBytes, kBufferBytes + 1, std::size_t{28671}}) {
    const Prediction seen = predict(m.p, deviation.with_small_upload_bytes(threshold));
    EXPECT_TRUE(disagreements(m.p, documented, seen, gpu).empty()) << threshold;
  }
  // Measured below the upload's size: the copy had to wait, so both models reject what the GPU did.
  const Prediction obeys = predict(m.p, deviation.with_small_upload_bytes(kBufferBytes - 1));
  EXPECT_EQ(disagreements(m.p, documented, obeys, gpu).size(), 2U);
  EXPECT_TRUE(obeys.held_at_gate_open.at(m.open).contains(m.copy));
}

TEST(GpuFindings, TheSmallPinnedUploadDeviationIsLimitedToPinnedUploads) {
  // A device-to-device copy on the legacy stream still waits for the gated blocking stream's memset.
  Program p;
  const Buffers b = add_buffers(p);
  const StreamId s1 = p.add_stream(StreamKind::Blocking);
  const GateId gate = p.gate_close(s1, GateStyle::SpinKernel);
  const CommandIndex memset = p.memset_async(b.device1, s1);
  const CommandIndex copy = p.memcpy_async(b.device0, b.device1, kLegacyStream);
  const CommandIndex open = p.gate_open(gate);
  for (const RuleSet& rules : {RuleSet::all(), RuleSet::all().with_seen_deviations()}) {
    const Prediction prediction = predict(p, rules);
    EXPECT_TRUE(prediction.held_at_gate_open.at(open).contains(memset));
    EXPECT_TRUE(prediction.held_at_gate_open.at(open).contains(copy));
  }
  static_assert(kBufferBytes <= kSmallUploadBytes, "the programs' uploads are the small ones seen to deviate");
}

// The shape of the marker findings: a gate closed on the legacy stream, and a blocking stream s1 with an
// event e, on which each test queues its marker.
struct LegacyHeld {
  Program p;
  StreamId s1 = 0;
  EventId e = 0;
  GateId gate = 0;
};

LegacyHeld legacy_held() {
  LegacyHeld h;
  h.s1 = h.p.add_stream(StreamKind::Blocking);
  h.e = h.p.add_event();
  h.gate = h.p.gate_close(kLegacyStream, GateStyle::SpinKernel);
  return h;
}

// Seed 2526355224 (full profile, GPU 0), cut to what matters: a gate on the legacy stream, a record on a
// blocking stream, then cudaStreamSynchronize of that stream, which returned at once.
TEST(GpuFindings, TheEventRecordDeviationExplainsASynchronizeThatReturnedAtOnce) {
  LegacyHeld h = legacy_held();
  Program& p = h.p;
  p.event_record(h.e, h.s1);
  const CommandIndex sync = p.stream_synchronize(h.s1);
  p.gate_open(h.gate);
  const Prediction documented = predict(p);
  EXPECT_EQ(documented.waits.at(sync), Wait::Waits);
  const Prediction seen = predict(p, RuleSet::all().with(Deviation::kStreamSyncSkipsWhatItsMarkersWaitFor));
  EXPECT_EQ(seen.waits.at(sync), Wait::CannotWait);
  Observation gpu = as_predicted(documented);
  gpu.blocked[sync] = false;
  EXPECT_EQ(disagreements(p, documented, gpu).size(), 1U);
  EXPECT_TRUE(disagreements(p, documented, seen, gpu).empty());
  // Had it waited, the documented model explains it: both answers are accepted, neither is required.
  gpu.blocked[sync] = true;
  EXPECT_TRUE(disagreements(p, documented, seen, gpu).empty());
}

// Seed 1396952701 (quick profile, H100): a gate on the legacy stream, a wait for a never-recorded event on
// a blocking stream, then cudaStreamSynchronize of that stream, which returned at once.
TEST(GpuFindings, TheMarkerDeviationExplainsASynchronizeAfterAnEventWait) {
  LegacyHeld h = legacy_held();
  Program& p = h.p;
  const StreamId s1 = h.s1;
  p.stream_wait_event(s1, h.e);
  const CommandIndex sync = p.stream_synchronize(s1);
  const Prediction documented = predict(p);
  EXPECT_EQ(documented.waits.at(sync), Wait::Waits);
  const Prediction seen = predict(p, RuleSet::all().with_seen_deviations());
  EXPECT_EQ(seen.waits.at(sync), Wait::CannotWait);
  Observation gpu = as_predicted(documented);
  gpu.blocked[sync] = false;
  EXPECT_TRUE(disagreements(p, documented, seen, gpu).empty());
  // Work queued there after the wait still waits for the legacy stream (its own rule 2).
  Program q = p.prefix(2);
  q.kernel({}, {q.add_buffer(BufferKind::Device, "d")}, s1);
  const CommandIndex sync_after_work = q.stream_synchronize(s1);
  EXPECT_EQ(predict(q, RuleSet::all().with_seen_deviations()).waits.at(sync_after_work), Wait::Waits);
}

TEST(GpuFindings, UnderTheRecordDeviationTheEventStillCapturesTheLegacyWork) {
  // cudaEventSynchronize of the same event waited 10 of 10 on the H100: the deviation is the stream's only.
  LegacyHeld h = legacy_held();
  Program& p = h.p;
  p.event_record(h.e, h.s1);
  const CommandIndex sync = p.event_synchronize(h.e);
  for (const RuleSet& rules : {RuleSet::all(), RuleSet::all().with_seen_deviations()})
    EXPECT_EQ(predict(p, rules).waits.at(sync), Wait::Waits);
}

// Seed 2188058342 (full profile, H100), cut to what matters: after the record deviation let
// cudaStreamSynchronize return, the documented model took the gated legacy work as done, and the drain
// that waited for it waited for a closed gate. The runner's drain waits only for work no closed gate holds.
TEST(GpuFindings, ADrainAfterATakenDeviationWaitsForNothingAClosedGateHolds) {
  LegacyHeld h = legacy_held();
  Program& p = h.p;
  const CommandIndex record = p.event_record(h.e, h.s1);
  const CommandIndex sync = p.stream_synchronize(h.s1);
  const CommandIndex drain = p.drain();
  p.gate_open(h.gate);
  const CommandIndex gate = 0;
  const Prediction documented = predict(p);
  EXPECT_TRUE(documented.drains.at(drain).done.contains(gate));  // it believes the synchronize waited
  EXPECT_TRUE(drain_waits_for(p.prefix(drain + 1)).empty());
  const Prediction seen = predict(p, RuleSet::all().with_seen_deviations());
  Observation gpu = as_predicted(documented);
  gpu.blocked[sync] = false;
  gpu.finished_at_drain[drain] = {};
  EXPECT_TRUE(disagreements(p, documented, seen, gpu).empty());
  // A marker's completion is not observed: an event recorded after it would wait for the legacy work.
  EXPECT_FALSE(completion_is_observed(p.commands()[record].kind));
  EXPECT_FALSE(seen.drains.at(drain).done.contains(record));
  // Had the gated work run before the gate opened, it would be a violation under both models.
  gpu.finished_at_drain[drain] = {gate};
  EXPECT_FALSE(disagreements(p, documented, seen, gpu).empty());
}

// Seed 1213461122 (full profile, H100): a gate on a blocking stream, a legacy-stream wait for an event
// never recorded, then a memset on a second blocking stream, which ran before the gate opened.
TEST(GpuFindings, AnUnrecordedEventWaitOnTheLegacyStreamPassesNoWaitOn) {
  Program p;
  const Buffers b = add_buffers(p);
  const StreamId s1 = p.add_stream(StreamKind::Blocking);
  const StreamId s2 = p.add_stream(StreamKind::Blocking);
  const EventId e = p.add_event();
  const GateId gate = p.gate_close(s1, GateStyle::SpinKernel);
  p.stream_wait_event(kLegacyStream, e);
  const CommandIndex memset = p.memset_async(b.pinned0, s2);
  const CommandIndex open = p.gate_open(gate);
  const Prediction documented = predict(p);
  EXPECT_TRUE(documented.held_at_gate_open.at(open).contains(memset));
  const Prediction seen = predict(p, RuleSet::all().with(Deviation::kUnrecordedEventWaitOnLegacyIsNoWork));
  EXPECT_FALSE(seen.held_at_gate_open.at(open).contains(memset));
  Observation gpu = as_predicted(documented);
  gpu.finished_at_gate_open[open] = {memset};
  EXPECT_FALSE(disagreements(p, documented, gpu).empty());
  EXPECT_TRUE(disagreements(p, documented, seen, gpu).empty());
  // A record on the legacy stream passes the wait on (10 of 10 in the probe), and so does a recorded event's wait.
  Program recorded = p.prefix(1);
  recorded.event_record(e, kLegacyStream);
  const CommandIndex after_record = recorded.memset_async(b.pinned0, s2);
  const CommandIndex open_after_record = recorded.gate_open(gate);
  EXPECT_TRUE(predict(recorded, RuleSet::all().with_seen_deviations())
                  .held_at_gate_open.at(open_after_record)
                  .contains(after_record));
}

// Seed 1434168090 and four others on the H100 (quick and full profiles): cudaStreamSynchronize of the
// legacy stream waited for a gate closed on a blocking stream; conformance_gpu/probes measured it alone.
TEST(GpuFindings, SynchronizingTheLegacyStreamWaitsForBlockingStreamsOnly) {
  for (StreamKind kind : {StreamKind::Blocking, StreamKind::NonBlocking}) {
    Program p;
    const StreamId s1 = p.add_stream(kind);
    p.gate_close(s1, GateStyle::SpinKernel);
    const CommandIndex sync = p.stream_synchronize(kLegacyStream);
    const Wait expected = kind == StreamKind::Blocking ? Wait::Waits : Wait::CannotWait;
    EXPECT_EQ(predict(p).waits.at(sync), expected);
    EXPECT_EQ(predict(p, RuleSet::all().without(Rule::kLegacyStreamImplicitSync)).waits.at(sync), Wait::CannotWait);
  }
}

TEST(GpuFindings, EveryDeviationNamesWhatItAllowsAndWhereItWasSeen) {
  ASSERT_EQ(all_deviations().size(), kDeviationCount);
  for (const DeviationInfo& d : all_deviations()) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.summary.empty());
    EXPECT_NE(d.evidence.find("seen"), std::string_view::npos) << d.name;
  }
  // The documented model allows none of them.
  for (const DeviationInfo& d : all_deviations()) EXPECT_FALSE(RuleSet::all().allows(d.deviation));
}

TEST(GpuFindings, MemsetTagsDecodeWhereverACopyCarriedThem) {
  const MemsetThenLegacyCopy m = memset_then_legacy_copy();
  const Tags tags{m.p, 0x5A3};
  EXPECT_EQ(Tags::memset_byte(m.memset), 0x1b);
  // A memset stores its byte in every byte; a copy carries the word as it is, so it decodes the same.
  EXPECT_EQ(tags.decode(0x1b1b1b1bU), m.memset);
  EXPECT_EQ(tags.decode(tags.initial(m.b.pinned1)), initial_value(m.b.pinned1));
  EXPECT_EQ(tags.decode(tags.write(m.copy)), m.copy);
  // A byte of a command that is no memset, or another run's nonce, is no value of this run.
  EXPECT_EQ(tags.decode(0x1a1a1a1aU), kUnknownValue);
  EXPECT_EQ(tags.decode(Tags{m.p, 0x123}.initial(m.b.pinned1)), kUnknownValue);
}

}  // namespace
}  // namespace hazardlab::conformance
