// Hazard: a pool of pinned buffers hands a block back out as soon as it is released, while an
// async copy from it is still pending. The next user's data is what the copy sends.
// (PyTorch's caching host allocator records an event per use to prevent exactly this.)
#include <memory>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// A pool of one pinned block, the smallest pool that reuses. With `track_uses`, release records
// an event on the stream that used the block, and acquire waits for it before handing it out.
class PinnedBlockPool {
 public:
  PinnedBlockPool(std::byte* block, bool track_uses, Guard guard)
      : block_(block), track_uses_(track_uses), guard_(guard) {}

  std::byte* acquire() {
    if (last_use_) guard_.host_waits_for(*last_use_);
    last_use_.reset();
    return block_;
  }

  void release(cudaStream_t used_on) {
    if (!track_uses_) return;
    last_use_ = std::make_unique<Event>();
    last_use_->record(used_on);
  }

 private:
  std::byte* block_;
  bool track_uses_;
  Guard guard_;
  std::unique_ptr<Event> last_use_;
};

TrialObservation reuse_pooled_block(Rig& rig, const TrialCase& c, bool track_uses, const TrialSettings& s) {
  Stream stream(c.stream);
  std::byte* destination = rig.device().data();
  PinnedBlockPool pool(rig.host(c.host_kind).data() + c.host_offset, track_uses, s.guard());
  enqueue_device_fill(destination, c.bytes, c.pattern, PatternVersion::Sentinel, stream.get());
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  TrialObservation obs;
  {
    HeldStream held(c.hold(s), stream.get(), track_uses ? FenceKind::EventSynchronize : FenceKind::None);
    // First user: fill a pooled block, copy it to the device, give it back.
    std::byte* mine = pool.acquire();
    fill_pattern({mine, c.bytes}, c.pattern, PatternVersion::Original);
    obs.call_blocked =
        held.issue([&] { HL_CUDA(cudaMemcpyAsync(destination, mine, c.bytes, cudaMemcpyHostToDevice, stream.get())); });
    pool.release(stream.get());
    // Next user: gets the same block and fills it with its own data.
    std::byte* theirs = pool.acquire();
    fill_pattern({theirs, c.bytes}, c.pattern, PatternVersion::Mutated);
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  obs.seen = rig.census_of_device(destination, c);
  obs.hazard_visible = obs.seen.mutated > 0;
  obs.data_correct = obs.seen.all_original();
  return obs;
}

Hazard pinned_pool_reuse() {
  CaseSpace space;
  space.host_kinds = {HostMemoryKind::Pinned, HostMemoryKind::PinnedPortable};
  return Hazard{
      .id = "pinned-pool-reuse",
      .title = "A pinned buffer pool reuses a block while an async copy from it is pending",
      .rules = {runtime_api_sync_behavior(
                    "Between device memory and pinned host memory, cudaMemcpyAsync is fully asynchronous: the "
                    "source is read when the copy runs."),
                {"PyTorch source", "CachingHostAllocator (record_event)",
                 "A freed pinned block is reused only after events recorded on every stream that used it have "
                 "completed."}},
      .requirements = {},
      .explanation =
          "Allocating pinned memory is slow, so frameworks keep released pinned blocks in a pool and hand "
          "them out again. Releasing a block right after queuing a cudaMemcpyAsync from it is natural (the "
          "call returned, the block looks unused), but the copy has not read it yet: the next user fills "
          "the block and the earlier copy sends that user's data. The positive control uses a one-block "
          "pool and a held stream to make the reuse certain. The guard is what PyTorch's caching host "
          "allocator does: record an event on the stream when the block is released, and wait for it "
          "before handing the block out again.",
      .variants = {make_variant(VariantKind::Control, "unsafe-release-after-call",
                                "release the pinned block right after cudaMemcpyAsync; the next user refills it", space,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return reuse_pooled_block(rig, c, false, s);
                                }),
                   make_variant(VariantKind::Guard, "record-event-on-release",
                                "record an event when the block is released, synchronize it before reuse", space,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return reuse_pooled_block(rig, c, true, s);
                                })},
      .pytorch = R"py(buf = torch.empty(n, pin_memory=True)
for batch in batches:
    buf.copy_(batch)                   # may overwrite the previous batch before its copy ran
    out.append(buf.to("cuda", non_blocking=True))
# fix: after each copy e = torch.cuda.Event(); e.record(); and e.synchronize() before refilling buf)py",
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::pinned_pool_reuse)
