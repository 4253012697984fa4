#include "scenario/cross_stream.hpp"

#include <thread>

#include "cuda/check.hpp"
#include "cuda/kernel_copy.hpp"
#include "hold/held_stream.hpp"
#include "trial/device_patterns.hpp"

namespace hazardlab {

void consume(const TrialCase& c, std::byte* destination, const std::byte* source, cudaStream_t stream) {
  if (c.params.as<Consumer>(kConsumer) == Consumer::Kernel) {
    enqueue_kernel_copy(destination, source, c.bytes, stream);
  } else {
    HL_CUDA(cudaMemcpyAsync(destination, source, c.bytes, cudaMemcpyDeviceToDevice, stream));
  }
}

bool completes_within(Event& event, std::chrono::microseconds window) {
  const auto deadline = std::chrono::steady_clock::now() + window;
  while (!event.query()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TrialObservation produce_then_consume(Rig& rig, const TrialCase& c, const CrossStreamPlan& plan,
                                      const TrialSettings& settings) {
  Stream producer(plan.producer);
  Stream consumer(plan.consumer);
  std::byte* data = rig.device().data();
  std::byte* copy = rig.device_scratch().data();

  // The buffer starts stale (C); the consumer's output starts as B, so a consumer that never ran shows.
  enqueue_device_fill(data, c.bytes, c.pattern, PatternVersion::Sentinel, producer.get());
  enqueue_device_fill(copy, c.bytes, c.pattern, PatternVersion::Mutated, producer.get());
  HL_CUDA(cudaStreamSynchronize(producer.get()));

  TrialObservation obs;
  Event produced;
  Event consumed;
  {
    HeldStream held(c.hold(settings), producer.get(), FenceKind::None);
    // The producer writes the fresh data (A), held back by the gate.
    enqueue_device_fill(data, c.bytes, c.pattern, PatternVersion::Original, producer.get());
    if (plan.ordering == Ordering::WaitBeforeRecord) HL_CUDA(cudaStreamWaitEvent(consumer.get(), produced.get(), 0));
    produced.record(producer.get());
    // The guard; the mutation check leaves it out.
    if (plan.ordering == Ordering::WaitEvent) settings.guard().stream_waits_for(consumer.get(), produced);
    // The consumer reads the buffer on the other stream.
    obs.call_blocked = held.issue([&] { consume(c, copy, data, consumer.get()); });
    consumed.record(consumer.get());

    const auto window = plan.consumer_first ? std::chrono::duration_cast<std::chrono::microseconds>(settings.call_limit)
                                            : std::chrono::microseconds(c.gate_delay_us);
    const bool early = completes_within(consumed, window);
    obs.detail = early ? "the consumer finished while the producer was held" : "the consumer waited for the producer";
    obs.gate_timed_out = held.release_and_drain(producer.get());
    HL_CUDA(cudaStreamSynchronize(consumer.get()));
  }

  obs.seen = rig.census_of_device(copy, c);
  obs.hazard_visible = obs.seen.sentinel > 0;  // the consumer read the buffer before the producer wrote it
  obs.data_correct = obs.seen.all_original();
  return obs;
}

}  // namespace hazardlab
