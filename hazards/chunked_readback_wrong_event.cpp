// Hazard: a device-to-host readback split into chunks, an event recorded after each, so that the
// host can start on a chunk as soon as it has arrived. The host waits on the previous chunk's
// event before reading a chunk: an off-by-one that reads the last chunk before it arrived.
#include <cstring>
#include <vector>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

constexpr std::uint32_t kMaxChunks = 16;
const Parameter kChunks{"chunks", 2, kMaxChunks, "pieces of the readback, each copied and followed by its own event"};

// Chunk k of n covers bytes [k * bytes / n, (k + 1) * bytes / n).
std::size_t chunk_start(std::size_t bytes, std::uint32_t chunk, std::uint32_t chunks) { return bytes * chunk / chunks; }

// Reads back `c.bytes` in chunks; the host copies each chunk out as soon as the event it waits on
// says so. `wait_own_event` is the fix: chunk k waits for event k, not for event k - 1.
TrialObservation read_chunks(Rig& rig, const TrialCase& c, bool wait_own_event, const TrialSettings& s) {
  rig.check_fits(c);
  const std::uint32_t chunks = c.params[kChunks];
  const std::span<std::byte> destination = rig.host_region(c);
  const std::byte* source = rig.device().data();
  std::byte* used = rig.snapshot().data();  // what the host took from each chunk when it took it
  Stream stream(c.stream);
  enqueue_device_fill(rig.device().data(), c.bytes, c.pattern, PatternVersion::Original, stream.get());
  fill_pattern(destination, c.pattern, PatternVersion::Sentinel);
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  std::vector<Event> arrived(chunks);
  const auto copy_chunk = [&](std::uint32_t k) {
    const std::size_t begin = chunk_start(c.bytes, k, chunks), end = chunk_start(c.bytes, k + 1, chunks);
    HL_CUDA(
        cudaMemcpyAsync(destination.data() + begin, source + begin, end - begin, cudaMemcpyDeviceToHost, stream.get()));
    arrived[k].record(stream.get());
  };
  TrialObservation obs;
  // Every chunk but the last is queued freely; the last one waits behind the gate, as a slow
  // device would make it.
  for (std::uint32_t k = 0; k + 1 < chunks; ++k) copy_chunk(k);
  {
    HeldStream held(c.hold(s), stream.get(), wait_own_event ? FenceKind::EventSynchronize : FenceKind::None);
    obs.call_blocked = held.issue([&] { copy_chunk(chunks - 1); });
    for (std::uint32_t k = 0; k < chunks; ++k) {
      if (wait_own_event) {
        s.guard().host_waits_for(arrived[k]);
      } else if (k > 0) {
        arrived[k - 1].synchronize();  // the bug: the event of the chunk before
      }
      const std::size_t begin = chunk_start(c.bytes, k, chunks), end = chunk_start(c.bytes, k + 1, chunks);
      std::memcpy(used + begin, destination.data() + begin, end - begin);
    }
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  obs.seen = take_census({used, c.bytes}, c.pattern);
  obs.settled = take_census(destination, c.pattern);
  obs.hazard_visible = !obs.seen.all_original();
  obs.data_correct = obs.seen.all_original() && obs.settled->all_original();
  if (obs.hazard_visible) {
    obs.detail = "the host used bytes from offset " + std::to_string(obs.seen.first_not_original) + " of " +
                 std::to_string(c.bytes) + " before they arrived";
  }
  return obs;
}

TrialFn reader(bool wait_own_event) {
  return [wait_own_event](Rig& rig, const TrialCase& c, const TrialSettings& s) {
    return read_chunks(rig, c, wait_own_event, s);
  };
}

Hazard chunked_readback_wrong_event() {
  CaseSpace space;
  space.min_bytes = kMaxChunks;  // every chunk at least one byte
  space.host_kinds = {HostMemoryKind::Pinned, HostMemoryKind::PinnedPortable};
  space.parameters = {kChunks};
  return Hazard{
      .id = "chunked-readback-wrong-event",
      .title = "Chunked device-to-host readback: a chunk read after waiting on the previous chunk's event",
      .rules = {{"CUDA Runtime API reference", "cudaEventRecord",
                 "An event captures the work queued on the stream at the time it is recorded; cudaEventSynchronize "
                 "waits for that work and nothing queued after it."},
                runtime_api_sync_behavior(
                    "Between device memory and pinned host memory, cudaMemcpyAsync is fully asynchronous: a chunk's "
                    "destination holds its data only once that chunk's copy has completed.")},
      .requirements = {},
      .explanation =
          "Large results are often read back in chunks, each copy followed by its own event, so that the "
          "host can process chunk k while the later chunks are still in flight. That is only safe when the "
          "host waits on chunk k's event before it touches chunk k. An event covers what was queued before "
          "it was recorded and nothing after, so waiting on the previous chunk's event (an easy off-by-one "
          "when the wait is written as 'make sure the last one finished') says nothing about the chunk about "
          "to be read. The positive control queues every chunk, holds the last one behind a gate as a busy "
          "device would, and reads chunk k after event k - 1: the last chunk is always read before it "
          "arrived. The guard waits on each chunk's own event; the property varies the number of chunks "
          "(2 to 16), the size, the stream and how long the last chunk is held.",
      .variants = {make_variant(VariantKind::Control, "unsafe-wait-previous-event",
                                "read chunk k after cudaEventSynchronize on the event of chunk k - 1", space,
                                reader(false)),
                   make_variant(VariantKind::Guard, "wait-own-event",
                                "read chunk k after cudaEventSynchronize on the event recorded after chunk k", space,
                                reader(true))},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::chunked_readback_wrong_event)
