#pragma once
// Scenario 3: a producer on one stream writes a device buffer and a consumer on another stream
// reads it. The producer is held behind a gate; whether the consumer can run first depends only
// on how the two streams are ordered, which is what the hazards built on this scenario teach.
#include "hazardlab/stream.hpp"
#include "hazardlab/transfer.hpp"

namespace hazardlab {

enum class Ordering {
  None,              // the consumer is issued with no cross-stream wait
  WaitEvent,         // cudaEventRecord after the producer, cudaStreamWaitEvent before the consumer
  WaitBeforeRecord,  // cudaStreamWaitEvent issued before the event is recorded: waits for nothing
};

// The case's knob chooses the consumer: 0 a copy engine (cudaMemcpyAsync device to device),
// 1 a kernel.
inline constexpr const char* kConsumerKnob = "consumer-is-kernel";

struct CrossStreamPlan {
  StreamKind producer;
  StreamKind consumer;
  Ordering ordering;
  // A positive control waits (up to the call limit) for the consumer to finish while the producer
  // is still held; otherwise the gate stays closed for the case's gate delay.
  bool consumer_first;
};

TrialObservation produce_then_consume(TransferRig& rig, const TransferCase& c, const CrossStreamPlan& plan,
                                      const Settings& settings);

// Runs the consumer (copy engine or kernel, by the case's knob) on `stream`.
void consume(const TransferCase& c, std::byte* destination, const std::byte* source, cudaStream_t stream);

// Polls `event` until it completes or `window` passes; true if it completed.
bool completes_within(Event& event, std::chrono::microseconds window);

}  // namespace hazardlab
