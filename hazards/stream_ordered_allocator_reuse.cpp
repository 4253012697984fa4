// Hazard: cudaFreeAsync on one stream while another stream still reads the block. The allocator
// may hand the block to the next cudaMallocAsync on the freeing stream at once, and the new
// owner's writes reach the reader. (PyTorch's record_stream exists for this.)
#include <optional>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

TrialObservation free_while_read(Rig& rig, const TrialCase& c, bool guarded, const TrialSettings& s) {
  Stream owner(StreamKind::NonBlocking);   // allocates, frees and reallocates
  Stream reader(StreamKind::NonBlocking);  // still reading the first block
  std::byte* copy = rig.device_scratch().data();

  StreamOrderedBlock first(c.bytes, owner.get());
  const std::byte* const first_address = first.data();
  enqueue_device_fill(first.data(), c.bytes, c.pattern, PatternVersion::Original, owner.get());
  enqueue_device_fill(copy, c.bytes, c.pattern, PatternVersion::Sentinel, owner.get());
  HL_CUDA(cudaStreamSynchronize(owner.get()));

  TrialObservation obs;
  std::optional<StreamOrderedBlock> next;
  {
    // The reader is held behind a gate: its read of the first block has not happened yet.
    HeldStream held(c.hold(s), reader.get(), guarded ? FenceKind::EventSynchronize : FenceKind::None);
    consume(c, copy, first.data(), reader.get());
    Event read_done;
    read_done.record(reader.get());
    // The guard: the freeing stream waits until the reader is done with the block.
    if (guarded) s.guard().stream_waits_for(owner.get(), read_done);
    obs.call_blocked = held.issue([&] {
      first.free_async();
      next.emplace(c.bytes, owner.get());
    });
    // The new owner writes its own data (B) into whatever block it got.
    enqueue_device_fill(next->data(), c.bytes, c.pattern, PatternVersion::Mutated, owner.get());
    Event written;
    written.record(owner.get());
    if (!guarded) {
      // Let the new owner finish while the reader is still held.
      if (!completes_within(written, std::chrono::duration_cast<std::chrono::microseconds>(s.call_limit))) {
        obs.undecided = "the new owner's write did not finish while the reader was held";
      }
    }
    obs.gate_timed_out = held.release_and_drain(reader.get());
    HL_CUDA(cudaStreamSynchronize(owner.get()));
  }
  const bool reused = next->data() == first_address;
  if (!reused && !guarded) obs.undecided = "cudaMallocAsync returned a different block, so nothing was overwritten";
  obs.detail = reused ? "cudaMallocAsync handed out the block being read" : "cudaMallocAsync returned another block";

  obs.seen = rig.census_of_device(copy, c);
  obs.hazard_visible = obs.seen.mutated > 0;  // the reader saw the next owner's data
  obs.data_correct = obs.seen.all_original();
  return obs;
}

Hazard stream_ordered_allocator_reuse() {
  CaseSpace space;
  space.streams = {StreamKind::NonBlocking};
  space.parameters = {kConsumer};
  return Hazard{
      .id = "stream-ordered-allocator-reuse",
      .title = "cudaFreeAsync while another stream still reads the block: the next allocation overwrites it",
      .rules = {{"CUDA Programming Guide", "Stream-Ordered Memory Allocator",
                 "Memory freed with cudaFreeAsync can be reused at once by allocations on the same stream; "
                 "using it from another stream after the free without an ordering dependency is undefined."},
                {"PyTorch documentation", "torch.Tensor.record_stream",
                 "The caching allocator reuses a block once the allocating stream is done with it; a tensor "
                 "used on another stream must be recorded on that stream so its reuse waits."}},
      .requirements = {{"memoryPoolsSupported = 1",
                        [](const DeviceFingerprint& d) {
                          return d.memory_pools_supported
                                     ? std::string()
                                     : std::string("the device does not support stream-ordered allocation");
                        }}},
      .explanation =
          "The stream-ordered allocator tracks when a block is free by the order of work on the stream that "
          "freed it. It knows nothing about other streams: if stream B is still reading a block when stream "
          "A frees it, the next cudaMallocAsync on A may get the same block and A's writes land in memory B "
          "has not finished reading. The positive control holds the reader behind a gate, frees and "
          "reallocates on the owner stream, writes the new data and only then lets the reader run: the reader "
          "sees the new owner's data (a trial in which the allocator returned a different block is "
          "inconclusive). The guard makes the freeing stream wait for an event recorded after the read.",
      .variants = {make_variant(VariantKind::Control, "unsafe-free-while-read",
                                "cudaFreeAsync and cudaMallocAsync on the owner stream while a reader is pending",
                                space,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return free_while_read(rig, c, false, s);
                                }),
                   make_variant(VariantKind::Guard, "stream-wait-event-before-free",
                                "cudaStreamWaitEvent(owner, event recorded after the read) before cudaFreeAsync", space,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return free_while_read(rig, c, true, s);
                                })},
      .pytorch = R"py(side = torch.cuda.Stream()
with torch.cuda.stream(side):
    y = x_gpu * 2                      # x_gpu was allocated on the default stream
del x_gpu                              # the caching allocator may hand its memory out again
                                       # while side still reads it
# fix: x_gpu.record_stream(side) before del x_gpu)py",
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::stream_ordered_allocator_reuse)
