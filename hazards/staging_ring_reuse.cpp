// Hazard: a ring of K pinned staging slots is refilled in turn; a slot is refilled before the
// copy that last used it has run, so an earlier batch arrives with a later batch's data.
#include <thread>
#include <vector>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

constexpr std::uint32_t kMaxSlots = 8;
constexpr std::uint32_t kMaxBatches = 16;
const Parameter kSlots{"slots", 1, kMaxSlots, "pinned staging slots, refilled in turn"};
const Parameter kBatches{"batches", 2, kMaxBatches,
                         "batches streamed through the ring (at least one more than the slots)"};

// Each batch has its own pattern, so every device region tells which batch it holds.
PatternSpec batch_pattern(const PatternSpec& base, std::uint32_t batch) {
  PatternSpec p = base;
  p.seed = splitmix64(base.seed + batch + 1);
  if (p.family == PatternFamily::Alternating || p.family == PatternFamily::Constant) p.family = PatternFamily::Random;
  return p;
}

TrialObservation stream_batches(Rig& rig, const TrialCase& c, bool per_slot_events, const TrialSettings& s) {
  const std::uint32_t slots = c.params[kSlots];
  const std::uint32_t batches = std::max(c.params[kBatches], slots + 1);  // at least one batch reuses a slot
  const std::size_t bytes = std::min(c.bytes, rig.max_bytes() / kMaxBatches);
  Stream stream(c.stream);
  std::byte* ring = rig.host(c.host_kind).data() + c.host_offset;
  std::byte* device = rig.device().data();
  std::vector<std::unique_ptr<Event>> slot_done(slots);

  TrialObservation obs;
  {
    HeldStream held(c.hold(s), stream.get(), per_slot_events ? FenceKind::EventSynchronize : FenceKind::None);
    for (std::uint32_t b = 0; b < batches; ++b) {
      const std::uint32_t slot = b % slots;
      std::byte* staging = ring + slot * bytes;
      // The guard: wait until the copy that last used this slot has completed.
      if (per_slot_events && slot_done[slot]) s.guard().host_waits_for(*slot_done[slot]);
      // Host jitter between batches, as a real producer has.
      std::this_thread::sleep_for(std::chrono::microseconds((c.gate_delay_us * (b + 1)) % 97));
      fill_pattern({staging, bytes}, batch_pattern(c.pattern, b), PatternVersion::Original);
      obs.call_blocked |= held.issue(
          [&] { HL_CUDA(cudaMemcpyAsync(device + b * bytes, staging, bytes, cudaMemcpyHostToDevice, stream.get())); });
      slot_done[slot] = std::make_unique<Event>();
      slot_done[slot]->record(stream.get());
    }
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  HL_CUDA(cudaMemcpy(rig.readback().data(), device, batches * bytes, cudaMemcpyDeviceToHost));
  for (std::uint32_t b = 0; b < batches; ++b) {
    const ByteCensus batch = take_census({rig.readback().data() + b * bytes, bytes}, batch_pattern(c.pattern, b));
    obs.seen.original += batch.original;
    obs.seen.foreign += batch.total() - batch.original;
    if (!batch.all_original() && obs.detail.empty()) {
      obs.detail = "batch " + std::to_string(b) + " of " + std::to_string(batches) + " arrived with other data";
    }
  }
  obs.hazard_visible = obs.seen.foreign > 0;
  obs.data_correct = obs.seen.foreign == 0 && obs.seen.original > 0;
  return obs;
}

Hazard staging_ring_reuse() {
  CaseSpace control;
  control.parameters = {kSlots.only(2), kBatches.only(3)};
  CaseSpace guarded;
  guarded.parameters = {kSlots, kBatches};
  return Hazard{
      .id = "staging-ring-reuse",
      .title = "A ring of pinned staging slots refills a slot before its previous copy ran",
      .rules = {runtime_api_sync_behavior(
          "Between device memory and pinned host memory, cudaMemcpyAsync is fully asynchronous: each slot is "
          "read when its copy runs, not when the call returns.")},
      .requirements = {},
      .explanation =
          "Input pipelines stage batches through a few pinned slots used in turn: fill slot i, queue its "
          "copy, move on. With K slots, batch K+1 refills the first slot, and nothing guarantees that batch "
          "1's copy has run by then; when the device falls behind, batch 1 arrives holding batch K+1's data. "
          "The positive control uses two slots and three batches with the stream held closed: the first batch "
          "always arrives wrong. The guard keeps one event per slot, recorded after the slot's copy and "
          "synchronized before the slot is refilled; the property varies the number of slots (1 to 8), the "
          "number of batches (up to 16), the batch size, the stream and the host's timing.",
      .variants = {make_variant(VariantKind::Control, "unsafe-refill-without-events",
                                "two slots, three batches, slots refilled without waiting", control,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return stream_batches(rig, c, false, s);
                                }),
                   make_variant(VariantKind::Guard, "event-per-slot",
                                "an event per slot, synchronized before the slot is refilled", guarded,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return stream_batches(rig, c, true, s);
                                })},
      .pytorch = R"py(ring = [torch.empty(n, pin_memory=True) for _ in range(2)]
for i, batch in enumerate(batches):
    slot = ring[i % 2]
    slot.copy_(batch)                  # the slot's previous copy may still be queued
    out.append(slot.to("cuda", non_blocking=True))
# fix: one torch.cuda.Event per slot, recorded after its copy and synchronized before refilling it)py",
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::staging_ring_reuse)
