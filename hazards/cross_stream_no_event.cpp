// Hazard: a kernel on one created stream produces data, a copy or kernel on another created
// stream consumes it, and nothing orders the two. Two streams are independent queues.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

TrialFn across(StreamKind kind, Ordering ordering, bool consumer_first) {
  return [=](Rig& rig, const TrialCase& c, const TrialSettings& s) {
    return produce_then_consume(rig, c, {kind, kind, ordering, consumer_first}, s);
  };
}

Hazard cross_stream_no_event() {
  CaseSpace nonblocking;
  nonblocking.streams = {StreamKind::NonBlocking};
  nonblocking.parameters = {kConsumer};
  CaseSpace blocking = nonblocking;
  blocking.streams = {StreamKind::Blocking};

  return Hazard{
      .id = "cross-stream-no-event",
      .title = "Producer and consumer on two created streams with no event between them",
      .rules = {{"CUDA C++ Programming Guide", "Streams",
                 "Operations in different streams may run in any order or concurrently; only work within one "
                 "stream is ordered."},
                {"CUDA Runtime API reference", "cudaStreamWaitEvent",
                 "Makes all future work submitted to a stream wait for the work captured by an event."}},
      .requirements = {},
      .explanation =
          "Each stream is its own queue. A kernel on stream A that writes a buffer and a copy or kernel "
          "on stream B that reads it have no order unless the program creates one. Blocking streams only "
          "order against the legacy default stream, never against each other, so two cudaStreamCreate "
          "streams race exactly like two non-blocking ones. The positive controls hold the producer behind "
          "a gate and the consumer reads the stale buffer. The guard records an event after the producer "
          "and makes the consumer's stream wait for it.",
      .variants = {make_variant(VariantKind::Control, "unsafe-nonblocking-streams",
                                "producer and consumer on two cudaStreamNonBlocking streams, no event", nonblocking,
                                across(StreamKind::NonBlocking, Ordering::None, true)),
                   make_variant(VariantKind::Control, "unsafe-blocking-streams",
                                "producer and consumer on two cudaStreamCreate streams, no event", blocking,
                                across(StreamKind::Blocking, Ordering::None, true)),
                   make_variant(VariantKind::Guard, "stream-wait-event",
                                "cudaEventRecord after the producer, cudaStreamWaitEvent before the consumer",
                                nonblocking, across(StreamKind::NonBlocking, Ordering::WaitEvent, false)),
                   race_window({RaceShape::TwoStreamsNoEvent, {HostAction::None}, std::nullopt})},
      .pytorch = R"py(s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
with torch.cuda.stream(s1): y = x * 2
with torch.cuda.stream(s2): z = y + 1  # nothing orders s2 after s1
# fix: s2.wait_stream(s1), or e = s1.record_event(); s2.wait_event(e))py",
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::cross_stream_no_event)
