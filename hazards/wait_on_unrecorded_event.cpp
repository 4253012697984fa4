// Hazard: cudaStreamWaitEvent is issued before the event it names has been recorded. The wait
// refers to nothing and the consumer runs at once: it reads stale data.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

TrialFn across(Ordering ordering, bool consumer_first) {
  return [=](Rig& rig, const TrialCase& c, const TrialSettings& s) {
    return produce_then_consume(rig, c, {StreamKind::NonBlocking, StreamKind::NonBlocking, ordering, consumer_first},
                                s);
  };
}

Hazard wait_on_unrecorded_event() {
  CaseSpace space;
  space.streams = {StreamKind::NonBlocking};
  space.parameters = {kConsumer};

  return Hazard{
      .id = "wait-on-unrecorded-event",
      .title = "cudaStreamWaitEvent issued before cudaEventRecord: the wait is for nothing",
      .rules = {{"CUDA Runtime API reference", "cudaStreamWaitEvent",
                 "The wait applies to the most recent cudaEventRecord of the event at the time of the call; "
                 "an event that was never recorded completes at once, and a later record does not affect "
                 "waits already issued."}},
      .requirements = {},
      .explanation =
          "An event captures the work queued before its latest cudaEventRecord. cudaStreamWaitEvent looks "
          "at the event as it is when the wait is issued, so a wait issued before the record (easy to do "
          "when two host threads share an event, or when the order of two calls is flipped) waits for "
          "nothing, and recording the event afterwards does not reach back. The positive control holds the "
          "producer behind a gate, issues the wait, then records: the consumer runs at once and reads "
          "stale data. Recording first and then waiting orders the streams.",
      .variants = {make_variant(VariantKind::Control, "unsafe-wait-before-record",
                                "cudaStreamWaitEvent on the consumer stream, then cudaEventRecord after the producer",
                                space, across(Ordering::WaitBeforeRecord, true)),
                   make_variant(VariantKind::Guard, "record-then-wait",
                                "cudaEventRecord after the producer first, cudaStreamWaitEvent afterwards", space,
                                across(Ordering::WaitEvent, false))},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::wait_on_unrecorded_event)
