// Hazard: a producer on the legacy default stream, a consumer on a stream created with
// cudaStreamNonBlocking. The consumer does not wait for the producer: it reads stale data.
// This is the race in PyTorch's "CUDA semantics" note: side streams are non-blocking.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

TrialFn across(StreamKind consumer, Ordering ordering, bool consumer_first) {
  return [=](Rig& rig, const TrialCase& c, const TrialSettings& s) {
    return produce_then_consume(rig, c, {StreamKind::Legacy, consumer, ordering, consumer_first}, s);
  };
}

Hazard legacy_stream_nonblocking_consumer() {
  CaseSpace space;
  space.streams = {StreamKind::Legacy};
  space.parameters = {kConsumer};

  return Hazard{
      .id = "legacy-stream-nonblocking-consumer",
      .title = "Consumer on a non-blocking stream reads what the legacy default stream has not written yet",
      .rules = {{"CUDA Runtime API reference", "Stream synchronization behavior",
                 "Work on the legacy default stream waits for all blocking streams and they wait for it; "
                 "streams created with cudaStreamNonBlocking take no part in this implicit ordering."},
                {"PyTorch documentation", "CUDA semantics: Stream semantics",
                 "An operation on a side stream may start before an operation on the default stream "
                 "that it depends on has finished; synchronize the streams explicitly."}},
      .requirements = {},
      .explanation =
          "The legacy default stream (stream 0 in code built without per-thread default streams) "
          "serializes with every blocking stream, which hides many missing dependencies. A stream created "
          "with cudaStreamNonBlocking opts out of that: its work runs as soon as it reaches the front of "
          "its own queue. Here a kernel on the legacy stream writes a buffer, held back by a gate, and a "
          "copy or kernel on a non-blocking stream reads it: the reader finishes first and gets the stale "
          "contents. A consumer on a blocking stream waits for the legacy stream and reads the new data, "
          "and cudaStreamWaitEvent on an event recorded after the producer orders any pair of streams.",
      .variants = {make_variant(VariantKind::Control, "unsafe-nonblocking-consumer",
                                "consumer on a cudaStreamNonBlocking stream, no event", space,
                                across(StreamKind::NonBlocking, Ordering::None, true)),
                   make_variant(VariantKind::Rule, "blocking-consumer-waits",
                                "consumer on a blocking stream (cudaStreamCreate): the legacy stream orders it", space,
                                across(StreamKind::Blocking, Ordering::None, false)),
                   make_variant(VariantKind::Guard, "stream-wait-event",
                                "cudaEventRecord after the producer, cudaStreamWaitEvent before the consumer", space,
                                across(StreamKind::NonBlocking, Ordering::WaitEvent, false)),
                   race_window({RaceShape::LegacyProducerNonBlockingConsumer, {HostAction::None}, std::nullopt})},
      .pytorch = R"py(y = x * 2                              # on the default (legacy) stream
side = torch.cuda.Stream()             # PyTorch's streams are non-blocking streams
with torch.cuda.stream(side):
    z = y + 1                          # may read y before it is written
# fix: side.wait_stream(torch.cuda.current_stream()) before using y on side)py",
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::legacy_stream_nonblocking_consumer)
