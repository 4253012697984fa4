// Hazard: cudaStreamAttachMemAsync(stream, ptr, 0, cudaMemAttachSingle) hands a managed buffer to
// one stream, and the host may use it once that stream is idle. The attach is itself queued: a host
// that reads right after attaching, behind a kernel that writes the buffer, reads the old bytes.
#include <cstring>
#include <memory>
#include <optional>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// What a device without concurrentManagedAccess does instead (why the hazard does not apply there).
constexpr const char* kWithoutConcurrentAccess =
    "there the positive control's early host read is a segmentation fault, not a race, so it cannot be run as a "
    "trial";

// The buffer holds the sentinel (C). Behind the gate, a kernel writes the data (A) and the buffer
// is attached to the same stream after it; the host reads the buffer after `fence`.
TrialObservation read_after_attach(Rig& rig, const TrialCase& c, FenceKind fence, const TrialSettings& s) {
  rig.check_fits(c);
  const ManagedBytes managed = allocate_managed(kMaxHostOffset + c.bytes);
  const std::span<std::byte> buffer{managed.get() + c.host_offset, c.bytes};
  std::byte* const seen = rig.snapshot().data();
  Stream stream(c.stream);  // destroyed before the buffer is freed: the attachment goes with it
  fill_pattern(buffer, c.pattern, PatternVersion::Sentinel);

  TrialObservation obs;
  {
    HeldStream held(c.hold(s), stream.get(), fence);
    obs.call_blocked = held.issue([&] {
      enqueue_device_fill(buffer.data(), c.bytes, c.pattern, PatternVersion::Original, stream.get());
      // Length 0: the whole allocation (a part of one cannot be attached).
      HL_CUDA(cudaStreamAttachMemAsync(stream.get(), managed.get(), 0, cudaMemAttachSingle));
    });
    s.guard().fence(fence, stream.get());
    std::memcpy(seen, buffer.data(), c.bytes);  // "attached to my stream: the host may use it"
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  obs.seen = take_census({seen, c.bytes}, c.pattern);  // C: read before the kernel wrote
  obs.settled = take_census(buffer, c.pattern);
  obs.hazard_visible = !obs.seen.all_original();
  obs.data_correct = obs.seen.all_original() && obs.settled->all_original();
  return obs;
}

TrialFn reader(FenceKind fence) {
  return [fence](Rig& rig, const TrialCase& c, const TrialSettings& s) { return read_after_attach(rig, c, fence, s); };
}

// The rule: another stream is held closed (a spin-kernel gate is a kernel running on it) for the
// whole trial. The buffer is attached to the case's stream, a kernel there writes A, and the host
// synchronizes that stream alone: it must get A without waiting for the other stream.
TrialObservation attached_stream_alone(Rig& rig, const TrialCase& c, const TrialSettings& s) {
  rig.check_fits(c);
  const ManagedBytes managed = allocate_managed(kMaxHostOffset + c.bytes);
  const std::span<std::byte> buffer{managed.get() + c.host_offset, c.bytes};
  std::byte* const seen = rig.snapshot().data();
  Stream attached(c.stream);
  Stream other(StreamKind::NonBlocking);
  fill_pattern(buffer, c.pattern, PatternVersion::Sentinel);
  // Under compute-sanitizer (seen with memcheck on an H100) the synchronize waits for the held
  // stream too: the tool, not CUDA, serializes the streams. There the other stream stays idle and
  // only the data is checked.
  const bool hold_other = !s.under_sanitizer;

  TrialObservation obs;
  bool returned_alone = true;  // the synchronize came back while the other stream was still held
  {
    // No fence: only the host opens this gate, after its read (or the gate's own timeout does).
    std::optional<HeldStream> busy;
    if (hold_other) busy.emplace(c.hold(s), other.get(), FenceKind::None);
    HL_CUDA(cudaStreamAttachMemAsync(attached.get(), managed.get(), 0, cudaMemAttachSingle));
    enqueue_device_fill(buffer.data(), c.bytes, c.pattern, PatternVersion::Original, attached.get());
    HL_CUDA(cudaStreamSynchronize(attached.get()));
    if (busy) returned_alone = busy->gate->opened_by() == GateOpener::NotYet;
    std::memcpy(seen, buffer.data(), c.bytes);
    if (busy) obs.gate_timed_out = busy->release_and_drain(other.get());
  }
  obs.seen = take_census({seen, c.bytes}, c.pattern);
  obs.settled = take_census(buffer, c.pattern);
  obs.hazard_visible = !obs.seen.all_original();
  // The call under test is the synchronize; "blocked" means it waited for the held other stream.
  obs.call_blocked = !returned_alone;
  obs.data_correct = returned_alone && obs.seen.all_original() && obs.settled->all_original();
  if (!returned_alone) {
    obs.detail = "cudaStreamSynchronize on the attached stream returned only once the other stream's gate opened";
  } else if (!hold_other) {
    obs.detail = "under compute-sanitizer: the other stream was not held";
  }
  return obs;
}

Hazard managed_stream_attach() {
  CaseSpace space;  // the case's host memory kind is not used: the buffer is always managed
  // Attaching singly to the legacy (NULL) stream is an error, and the per-thread default stream is
  // no stream of the program's own either: created streams only.
  space.streams = {StreamKind::Blocking, StreamKind::NonBlocking};
  // Every trial migrates the buffer's pages to the GPU and back; past a few 2 MiB blocks a larger
  // buffer only costs time.
  space.max_bytes = std::size_t{8} << 20;
  return Hazard{
      .id = "managed-stream-attach",
      .title = "cudaStreamAttachMemAsync: the host may use the buffer once the attach has run and the stream is idle",
      .rules = {{"CUDA Runtime API reference", "cudaStreamAttachMemAsync",
                 "The attach is a stream-ordered operation: it takes effect only when previous work in the stream "
                 "has completed, and the program must order it with events or synchronization."},
                {"CUDA Runtime API reference", "cudaStreamAttachMemAsync",
                 "Memory attached to a single stream may be accessed by the CPU once all operations in that stream "
                 "have completed, regardless of whether other streams are active."},
                {"CUDA C++ Programming Guide",
                 "Unified Memory Programming: Managing Data Visibility and Concurrent CPU + GPU Access with Streams",
                 "Associating an allocation with a stream limits the GPU's exclusive ownership of it to that "
                 "stream's work; the host synchronizes that stream before it touches the allocation."}},
      .requirements = {requires_concurrent_managed_access(kWithoutConcurrentAccess)},
      .explanation =
          "Without concurrentManagedAccess, the GPU owns all managed memory while any kernel runs. "
          "cudaStreamAttachMemAsync(stream, ptr, 0, cudaMemAttachSingle) narrows that: the buffer belongs to "
          "one stream, and the host may touch it once that stream is idle, even while other streams keep "
          "working. Two things are easy to miss. The attach is queued like a kernel: it happens when the stream "
          "reaches it, so the host must synchronize the stream after attaching, not just call it. And idle "
          "means the work already queued on that stream, including the kernel that writes the buffer. The "
          "positive control holds the stream closed behind a gate, queues a kernel that writes the buffer and "
          "then the attach, and reads the buffer as soon as the attach call returns: the host always reads "
          "the old bytes. Each guard synchronizes the stream (or an event recorded after the attach) first. "
          "The rule checks the promise itself: with another stream held busy the whole time, synchronizing "
          "the attached stream alone returns and the host reads the kernel's data. On GPUs without "
          "concurrentManagedAccess the early read would crash the process instead of racing, so the hazard is "
          "reported as not applicable there; on GPUs with it, the attachment changes no access rights, and the "
          "rule shows the synchronization it asks for still suffices.",
      .variants = {make_variant(VariantKind::Control, "unsafe-read-right-after-attach",
                                "read the managed buffer as soon as cudaStreamAttachMemAsync returns, behind the "
                                "kernel that writes it",
                                space, reader(FenceKind::None)),
                   make_variant(VariantKind::Guard, "stream-synchronize",
                                "cudaStreamSynchronize(stream) after the attach, before the host reads", space,
                                reader(FenceKind::StreamSynchronize)),
                   make_variant(VariantKind::Guard, "event-synchronize",
                                "cudaEventRecord after the attach, cudaEventSynchronize before the host reads", space,
                                reader(FenceKind::EventSynchronize)),
                   make_variant(VariantKind::Rule, "other-streams-may-stay-busy",
                                "attach singly, write with a kernel, synchronize the attached stream alone while "
                                "another stream is held busy, then read",
                                space, attached_stream_alone)},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::managed_stream_attach)
