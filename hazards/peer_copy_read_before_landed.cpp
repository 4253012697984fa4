// Hazard: cudaMemcpyPeerAsync is queued on the source GPU's stream; the destination GPU reads the
// buffer on a stream of its own before the copy has landed. Two GPUs' streams share no order.
#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// The destination GPU reads what arrived (a copy to pinned host memory on its own stream). With
// `wait_event`, the fix: an event recorded after the peer copy on the source GPU's stream, waited
// for by the destination GPU's stream.
TrialObservation read_on_destination(Rig& rig, const TrialCase& c, bool wait_event, const TrialSettings& s) {
  rig.check_fits(c);
  const PeerPair pair = peer_pair_of(rig.device_info().index);
  PeerAccessScope access(pair, c.params.as<PeerAccess>(kPeerAccess));
  Stream source_stream(c.stream);
  OnDevice<DeviceBuffer> landed(pair.destination, c.bytes);
  OnDevice<Stream> reader(pair.destination, StreamKind::NonBlocking);
  OnDevice<Event> read_done(pair.destination);  // an event is recorded only on a stream of its own device
  {
    DeviceScope on(pair.destination);
    enqueue_device_fill(landed->data(), c.bytes, c.pattern, PatternVersion::Sentinel, reader->get());
    HL_CUDA(cudaStreamSynchronize(reader->get()));
  }
  std::byte* read = rig.readback().data();
  enqueue_device_fill(rig.device().data(), c.bytes, c.pattern, PatternVersion::Original, source_stream.get());
  HL_CUDA(cudaStreamSynchronize(source_stream.get()));

  TrialObservation obs;
  Event copied;
  {
    HeldStream held(c.hold(s), source_stream.get(), wait_event ? FenceKind::EventSynchronize : FenceKind::None);
    obs.call_blocked = held.issue([&] {
      HL_CUDA(cudaMemcpyPeerAsync(landed->data(), pair.destination, rig.device().data(), pair.source, c.bytes,
                                  source_stream.get()));
    });
    copied.record(source_stream.get());
    {
      DeviceScope on(pair.destination);
      if (wait_event) s.guard().stream_waits_for(reader->get(), copied);
      HL_CUDA(cudaMemcpyAsync(read, landed->data(), c.bytes, cudaMemcpyDeviceToHost, reader->get()));
      read_done->record(reader->get());
    }
    // The unsafe read finishes while the copy is still held; a guarded one must not, for as long as
    // the case holds the gate.
    const bool read_early = completes_within(*read_done, wait_event ? c.hold(s).gate_delay : s.call_limit);
    if (!wait_event && !read_early) obs.undecided = "the destination's read did not finish while the copy was held";
    obs.gate_timed_out = held.release_and_drain(source_stream.get());
  }
  read_done->synchronize();
  obs.seen = take_census({read, c.bytes}, c.pattern);
  obs.settled = rig.census_of_device(landed->data(), c);
  obs.hazard_visible = !obs.seen.all_original();
  obs.data_correct = obs.seen.all_original() && obs.settled->all_original();
  obs.detail = access.describe();
  return obs;
}

TrialFn destination_reader(bool wait_event) {
  return [wait_event](Rig& rig, const TrialCase& c, const TrialSettings& s) {
    return read_on_destination(rig, c, wait_event, s);
  };
}

Hazard peer_copy_read_before_landed() {
  CaseSpace space;
  space.streams = {StreamKind::NonBlocking, StreamKind::Blocking};
  space.parameters = {kPeerAccess};
  return Hazard{
      .id = "peer-copy-read-before-landed",
      .title = "The destination GPU reads a buffer before a cudaMemcpyPeerAsync on the source GPU's stream landed",
      .rules = {{"CUDA Runtime API reference", "cudaMemcpyPeerAsync",
                 "Copies memory from one device to memory on another device; the copy is asynchronous with respect "
                 "to the host and ordered only within the given stream."},
                {"CUDA C++ Programming Guide", "Multi-Device System: Stream and Event Behavior",
                 "cudaStreamWaitEvent succeeds even if the stream and the event belong to different devices: it is "
                 "how one device's stream waits for another device's work."}},
      .requirements = {{"a second GPU it has peer access to", unmet_peer_pair}},
      .explanation =
          "A peer copy belongs to the stream it was queued on, here one of the source GPU's. The destination "
          "GPU's streams know nothing of it: a kernel or copy there that reads the buffer can run before the "
          "copy has landed, with peer access enabled (a direct copy) or not (the driver stages it). The unsafe "
          "variant holds the source stream closed and lets the destination read first: it reads the old "
          "contents. The guard records an event after the peer copy and makes the destination's stream wait "
          "for it with cudaStreamWaitEvent, which works across devices. This GPU copies to the next GPU in PCI "
          "order, so a run on two GPUs tests both directions; each GPU's report names its pair.",
      .variants = {labelled(make_variant(VariantKind::Control, "unsafe-read-on-destination",
                                         "the destination GPU reads on its own stream with no event", space,
                                         destination_reader(false)),
                            std::string(kTwoGpuLabel)),
                   labelled(make_variant(VariantKind::Guard, "cross-device-event-wait",
                                         "an event after the peer copy, waited for by the destination GPU's stream",
                                         space, destination_reader(true)),
                            std::string(kTwoGpuLabel))},
      .pytorch = R"py(y = x0.to("cuda:1", non_blocking=True)   # queued on cuda:0's current stream
with torch.cuda.device(1):
    z = y * 2                                # cuda:1's stream: may read y before it landed
# fix: torch.cuda.current_stream(1).wait_stream(torch.cuda.current_stream(0)) before using y)py",
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::peer_copy_read_before_landed)
