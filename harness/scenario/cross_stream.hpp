#pragma once
// Scenario: a producer on one stream writes a device buffer and a consumer on another stream
// reads it. The producer is held behind a gate; whether the consumer can run first depends only
// on how the two streams are ordered, which is what the hazards built on this scenario teach.
#include <chrono>

#include "cuda/stream.hpp"
#include "trial/parameter.hpp"
#include "trial/trial.hpp"

namespace hazardlab {

enum class Ordering {
  None,              // the consumer is issued with no cross-stream wait
  WaitEvent,         // cudaEventRecord after the producer, cudaStreamWaitEvent before the consumer
  WaitBeforeRecord,  // cudaStreamWaitEvent issued before the event is recorded: waits for nothing
};

// What reads the buffer on the consumer's stream. The enumerators follow kConsumer's labels.
enum class Consumer : std::uint32_t { CopyEngine, Kernel };
inline const Parameter kConsumer =
    Parameter::choice("consumer", {"copy-engine", "kernel"},
                      "what reads the buffer on the other stream: cudaMemcpyAsync device to device, or a copy kernel");

struct CrossStreamPlan {
  StreamKind producer;
  StreamKind consumer;
  Ordering ordering;
  // A positive control waits (up to the call limit) for the consumer to finish while the producer
  // is still held; otherwise the gate stays closed for the case's gate delay.
  bool consumer_first;
};

TrialObservation produce_then_consume(Rig& rig, const TrialCase& c, const CrossStreamPlan& plan,
                                      const TrialSettings& settings);

// Runs the case's consumer (kConsumer) on `stream`, reading `source` into `destination`.
void consume(const TrialCase& c, std::byte* destination, const std::byte* source, cudaStream_t stream);

// Polls `event` until it completes or `window` passes; true if it completed.
bool completes_within(Event& event, std::chrono::microseconds window);

}  // namespace hazardlab
