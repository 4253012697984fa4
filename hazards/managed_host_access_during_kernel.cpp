// Hazard: the host touches a cudaMallocManaged buffer while a kernel that uses it is still queued
// or running. Managed memory is one pointer for host and device, not one owner at a time: on
// devices with concurrentManagedAccess the host's write reaches the kernel, or its read misses it.
#include <cstring>
#include <memory>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// What a device without concurrentManagedAccess does instead (why the hazard does not apply there).
constexpr const char* kWithoutConcurrentAccess =
    "there the GPU owns all managed memory while any kernel runs, and a host access in that time is a segmentation "
    "fault, not a race";

// What the host does to the buffer while the kernel is pending. The enumerators follow the labels.
enum class HostAccess : std::uint32_t { Write, Read };
const Parameter kAccess = Parameter::choice(
    "host-access", {"write", "read"},
    "what the host does while the kernel is pending: writes the buffer the kernel reads, or reads the buffer the "
    "kernel writes");

// Write: the buffer holds the data (A) and the kernel copies it to device memory; the damage is
// the host writing B into it. Read: the buffer holds the sentinel (C), the kernel writes A, and
// the host reads. The case's host memory kind is not used: the buffer is always managed.
TrialObservation touch_while_kernel_pending(Rig& rig, const TrialCase& c, FenceKind fence, const TrialSettings& s) {
  rig.check_fits(c);
  const HostAccess access = c.params.as<HostAccess>(kAccess);
  const ManagedBytes managed = allocate_managed(kMaxHostOffset + c.bytes);
  const std::span<std::byte> buffer{managed.get() + c.host_offset, c.bytes};
  std::byte* const copy = rig.device().data();    // what the kernel read (write case)
  std::byte* const seen = rig.snapshot().data();  // what the host read (read case)
  Stream stream(c.stream);
  if (access == HostAccess::Write) {
    fill_pattern(buffer, c.pattern, PatternVersion::Original);
    enqueue_device_fill(copy, c.bytes, c.pattern, PatternVersion::Sentinel, stream.get());
  } else {
    fill_pattern(buffer, c.pattern, PatternVersion::Sentinel);
  }
  HL_CUDA(cudaStreamSynchronize(stream.get()));

  TrialObservation obs;
  {
    HeldStream held(c.hold(s), stream.get(), fence);
    obs.call_blocked = held.issue([&] {
      if (access == HostAccess::Write) {
        enqueue_kernel_copy(copy, buffer.data(), c.bytes, stream.get());
      } else {
        enqueue_device_fill(buffer.data(), c.bytes, c.pattern, PatternVersion::Original, stream.get());
      }
    });
    s.guard().fence(fence, stream.get());
    // The host treats the buffer as its own again, as it would ordinary memory.
    if (access == HostAccess::Write) {
      fill_pattern(buffer, c.pattern, PatternVersion::Mutated);
    } else {
      std::memcpy(seen, buffer.data(), c.bytes);
    }
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }

  if (access == HostAccess::Write) {
    obs.seen = rig.census_of_device(copy, c);  // B: the kernel read what the host wrote after the launch
    obs.hazard_visible = obs.seen.mutated > 0;
    obs.data_correct = obs.seen.all_original();
  } else {
    obs.seen = take_census({seen, c.bytes}, c.pattern);  // C: the host read before the kernel wrote
    obs.settled = take_census(buffer, c.pattern);
    obs.hazard_visible = !obs.seen.all_original();
    obs.data_correct = obs.seen.all_original() && obs.settled->all_original();
  }
  return obs;
}

TrialFn toucher(FenceKind fence) {
  return
      [fence](Rig& rig, const TrialCase& c, const TrialSettings& s) { return touch_while_kernel_pending(rig, c, fence, s); };
}

Hazard managed_host_access_during_kernel() {
  CaseSpace space;
  space.parameters = {kAccess};
  // Every trial migrates the buffer's pages to the GPU and back; past a few 2 MiB blocks a larger
  // buffer only costs time.
  space.max_bytes = std::size_t{8} << 20;
  return Hazard{
      .id = "managed-host-access-during-kernel",
      .title = "The host touches managed memory while a kernel that uses it is still pending",
      .rules = {{"CUDA C++ Programming Guide", "Unified Memory Programming: Coherency and Concurrency",
                 "On devices with concurrentManagedAccess the CPU and GPU may access managed memory at the same "
                 "time; the program must order conflicting accesses itself, with stream, event or device "
                 "synchronization (or system-scope atomics)."},
                {"CUDA C++ Programming Guide",
                 "Unified Memory Programming: GPU Exclusive Access To Managed Memory (concurrentManagedAccess = 0)",
                 "Without concurrentManagedAccess the GPU has exclusive access to managed memory while any kernel "
                 "runs; the CPU may touch it only after a synchronization such as cudaStreamSynchronize or "
                 "cudaDeviceSynchronize, and an earlier access is a segmentation fault."}},
      .requirements = {requires_concurrent_managed_access(kWithoutConcurrentAccess)},
      .explanation =
          "cudaMallocManaged gives one pointer that works on the host and in kernels, and the driver moves "
          "pages to whichever side touches them. That makes it easy to forget that a kernel launch only queues "
          "the kernel: the memory is shared, so whoever touches it first wins. On GPUs with "
          "concurrentManagedAccess (Pascal and later on Linux, such as H100) nothing stops the host from "
          "writing the buffer while a kernel that reads it is queued or running, and the kernel then reads "
          "the host's new bytes; a host that reads a buffer the kernel is about to write gets the old bytes. "
          "The positive control holds the stream closed behind a gate, queues a kernel that reads the buffer "
          "(parameter host-access = write) or writes it (read), touches the buffer from the host, then opens "
          "the gate: the kernel always sees the rewritten data, or the host always saw stale data. Each guard "
          "waits for the kernel (cudaStreamSynchronize, or an event recorded after it) before the host "
          "touches the buffer. On GPUs without concurrentManagedAccess the same code does not race, it "
          "crashes: the host may not touch any managed memory while any kernel runs, so the hazard is "
          "reported as not applicable there.",
      .variants = {make_variant(VariantKind::Control, "unsafe-touch-while-kernel-pending",
                                "write or read the managed buffer right after launching the kernel that uses it", space,
                                toucher(FenceKind::None)),
                   make_variant(VariantKind::Guard, "stream-synchronize",
                                "cudaStreamSynchronize(stream) after the launch, before the host touches the buffer",
                                space, toucher(FenceKind::StreamSynchronize)),
                   make_variant(VariantKind::Guard, "event-synchronize",
                                "cudaEventRecord after the kernel, cudaEventSynchronize before the host touches the "
                                "buffer",
                                space, toucher(FenceKind::EventSynchronize))},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::managed_host_access_during_kernel)
