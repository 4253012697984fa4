// Observation: cudaMemcpy from pageable memory to the device returns once the data is staged,
// not once it has arrived, so a kernel or copy on a non-blocking stream may still read the old
// device contents. No document gives a size below which this happens: the rate is reported.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// cudaMemcpy from pageable memory, then at once a consumer on a non-blocking stream. With
// `ordered`, the consumer's stream first waits for an event recorded on the legacy stream after
// the copy (the guard; the mutation check leaves it out).
TrialObservation consume_after_sync_copy(Rig& rig, const TrialCase& c, const TrialSettings& s, bool ordered) {
  const std::span<std::byte> source = rig.host_region(HostMemoryKind::Pageable, c);
  std::byte* data = rig.device().data();
  std::byte* copy = rig.device_scratch().data();
  Stream consumer(StreamKind::NonBlocking);
  fill_pattern(source, c.pattern, PatternVersion::Original);
  enqueue_device_fill(data, c.bytes, c.pattern, PatternVersion::Sentinel, consumer.get());
  enqueue_device_fill(copy, c.bytes, c.pattern, PatternVersion::Mutated, consumer.get());
  HL_CUDA(cudaStreamSynchronize(consumer.get()));

  HL_CUDA(cudaMemcpy(data, source.data(), c.bytes, cudaMemcpyHostToDevice));
  Event copied;
  copied.record(cudaStreamLegacy);
  if (ordered) s.guard().stream_waits_for(consumer.get(), copied);
  consume(c, copy, data, consumer.get());
  HL_CUDA(cudaStreamSynchronize(consumer.get()));
  HL_CUDA(cudaDeviceSynchronize());

  TrialObservation obs;
  obs.seen = rig.census_of_device(copy, c);
  obs.hazard_visible = obs.seen.sentinel > 0;
  obs.data_correct = obs.seen.all_original();
  return obs;
}

Hazard sync_copy_not_a_fence() {
  CaseSpace space;
  space.host_kinds = {HostMemoryKind::Pageable};
  space.streams = {StreamKind::NonBlocking};
  space.gates = {GateKind::HostFunction};
  space.parameters = {kConsumer};

  return Hazard{
      .id = "sync-copy-not-a-fence",
      .title = "A synchronous pageable cudaMemcpy does not order work on non-blocking streams",
      .rules = {runtime_api_sync_behavior(
                    "For transfers from pageable host memory to device memory, cudaMemcpy returns once the "
                    "buffer has been copied to staging memory; the DMA to the final destination may not "
                    "have completed."),
                {"CUDA C++ Programming Guide", "Concurrent Execution between Host and Device",
                 "Host-to-device copies of 64 KB or less from pageable memory are asynchronous to the host."}},
      .requirements = {},
      .explanation =
          "\"Synchronous\" in cudaMemcpy's name is about the host's buffer, not about the device: for a "
          "pageable source the call returns once the bytes sit in the driver's staging buffer, and the last "
          "DMA to device memory may still be in flight. The legacy default stream orders the copy before "
          "later work on itself and on blocking streams, but a kernel or copy on a cudaStreamNonBlocking "
          "stream is free to read the destination at once. The observation issues such a consumer straight "
          "after the call and reports how often it read the old contents, size by size; it does not assume "
          "a threshold the documentation does not state. The fix records an event on the legacy stream after "
          "the copy and makes the consumer's stream wait for it; it is checked as a documented rule rather "
          "than a mutation-checked guard, because a synchronous copy cannot be held behind a gate, so the "
          "unguarded race can be observed but not forced.",
      .variants = {make_variant(VariantKind::Observation, "nonblocking-consumer-after-memcpy",
                                "cudaMemcpy from pageable memory, then a consumer on a non-blocking stream", space,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return consume_after_sync_copy(rig, c, s, false);
                                }),
                   make_variant(VariantKind::Rule, "stream-wait-event",
                                "cudaEventRecord on the legacy stream after the copy, cudaStreamWaitEvent before "
                                "the consumer",
                                space,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return consume_after_sync_copy(rig, c, s, true);
                                })},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::sync_copy_not_a_fence)
