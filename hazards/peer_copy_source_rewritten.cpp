// Hazard: a peer copy is queued on one stream of the source GPU; a kernel on another stream of the
// same GPU rewrites the source before the copy ran. The destination GPU receives the new bytes.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// With `wait_event`, the fix: the rewriting stream waits for an event recorded after the peer copy.
TrialObservation rewrite_source(Rig& rig, const TrialCase& c, bool wait_event, const TrialSettings& s) {
  rig.check_fits(c);
  const PeerPair pair = peer_pair_of(rig.device_info().index);
  PeerAccessScope access(pair, c.params.as<PeerAccess>(kPeerAccess));
  Stream copy_stream(c.stream), rewriter(StreamKind::NonBlocking);
  OnDevice<DeviceBuffer> landed(pair.destination, c.bytes);
  {
    DeviceScope on(pair.destination);
    enqueue_device_fill(landed->data(), c.bytes, c.pattern, PatternVersion::Sentinel, nullptr);
    HL_CUDA(cudaDeviceSynchronize());
  }
  std::byte* source = rig.device().data();
  enqueue_device_fill(source, c.bytes, c.pattern, PatternVersion::Original, copy_stream.get());
  HL_CUDA(cudaStreamSynchronize(copy_stream.get()));

  TrialObservation obs;
  Event copied, rewritten;
  {
    HeldStream held(c.hold(s), copy_stream.get(), wait_event ? FenceKind::EventSynchronize : FenceKind::None);
    obs.call_blocked = held.issue([&] {
      HL_CUDA(cudaMemcpyPeerAsync(landed->data(), pair.destination, source, pair.source, c.bytes, copy_stream.get()));
    });
    copied.record(copy_stream.get());
    if (wait_event) s.guard().stream_waits_for(rewriter.get(), copied);
    // The next batch, written into the same source buffer by a kernel on another stream.
    enqueue_device_fill(source, c.bytes, c.pattern, PatternVersion::Mutated, rewriter.get());
    rewritten.record(rewriter.get());
    const bool rewrote_early = completes_within(rewritten, wait_event ? c.hold(s).gate_delay : s.call_limit);
    if (!wait_event && !rewrote_early) obs.undecided = "the rewrite did not finish while the copy was held";
    obs.gate_timed_out = held.release_and_drain(copy_stream.get());
  }
  HL_CUDA(cudaStreamSynchronize(rewriter.get()));
  obs.seen = rig.census_of_device(landed->data(), c);
  obs.hazard_visible = obs.seen.mutated > 0;
  obs.data_correct = obs.seen.all_original();
  obs.detail = access.describe();
  return obs;
}

TrialFn rewriter_of(bool wait_event) {
  return
      [wait_event](Rig& rig, const TrialCase& c, const TrialSettings& s) { return rewrite_source(rig, c, wait_event, s); };
}

Hazard peer_copy_source_rewritten() {
  CaseSpace space;
  space.streams = {StreamKind::NonBlocking, StreamKind::Blocking};
  space.parameters = {kPeerAccess};
  return Hazard{
      .id = "peer-copy-source-rewritten",
      .title = "A kernel on another stream of the source GPU rewrites the source of a queued peer copy",
      .rules = {{"CUDA Runtime API reference", "cudaMemcpyPeerAsync",
                 "The copy is ordered only within the stream it is queued on; it reads its source when it runs."},
                {"CUDA C++ Programming Guide", "Streams",
                 "Operations in different streams may run in any order or concurrently; only work within one "
                 "stream is ordered."}},
      .requirements = {{"a second GPU it has peer access to", unmet_peer_pair}},
      .explanation =
          "A peer copy reads its source when its stream reaches it, not when it is queued. Work on another "
          "stream of the same GPU that writes the source (the next batch, say) can run first, and the "
          "destination GPU then receives the new data, or a mix. The unsafe variant holds the copy's stream "
          "closed while a kernel on a second stream rewrites the source. The guard records an event after the "
          "peer copy and makes the rewriting stream wait for it. Tested with peer access enabled and disabled; "
          "this GPU copies to the next GPU in PCI order.",
      .variants = {labelled(make_variant(VariantKind::Control, "unsafe-rewrite-on-other-stream",
                                         "a kernel on another stream of the source GPU rewrites the source, no event",
                                         space, rewriter_of(false)),
                            std::string(kTwoGpuLabel)),
                   labelled(make_variant(VariantKind::Guard, "stream-wait-event",
                                         "the rewriting stream waits for an event recorded after the peer copy", space,
                                         rewriter_of(true)),
                            std::string(kTwoGpuLabel))},
      .pytorch = R"py(side = torch.cuda.Stream()
y = x.to("cuda:1", non_blocking=True)   # queued on cuda:0's current stream
with torch.cuda.stream(side):
    x.mul_(2)                           # may run before the copy read x
# fix: side.wait_stream(torch.cuda.current_stream()) first (and x.record_stream(side)))py",
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::peer_copy_source_rewritten)
