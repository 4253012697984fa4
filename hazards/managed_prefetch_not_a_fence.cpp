// Hazard: a kernel writes a managed buffer, the host queues cudaMemPrefetchAsync(..., CPU, stream)
// (after cudaMemAdvise, perhaps) and reads the buffer. A prefetch moves pages; it waits for nothing,
// so the host reads the buffer before the kernel wrote it.
#include <cstring>
#include <memory>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// What a device without concurrentManagedAccess does instead (why the hazard does not apply there).
constexpr const char* kWithoutConcurrentAccess =
    "there the host may not touch managed memory while any kernel runs (a segmentation fault, not a race), whatever "
    "was prefetched";

// What the host issues between the kernel and its read. The enumerators follow the labels.
enum class Hint : std::uint32_t { Prefetch, AdviseAndPrefetch };
const Parameter kHint = Parameter::choice(
    "hint", {"prefetch", "advise-and-prefetch"},
    "what the host issues after the kernel: cudaMemPrefetchAsync to the CPU on the kernel's stream, or first "
    "cudaMemAdvise(cudaMemAdviseSetPreferredLocation, CPU) and then the prefetch");

// CUDA 13 takes a cudaMemLocation (and flags) where CUDA 12 took a device ordinal.
void prefetch_to_host(const std::byte* p, std::size_t bytes, cudaStream_t stream) {
#if CUDART_VERSION >= 13000
  cudaMemLocation host{};
  host.type = cudaMemLocationTypeHost;
  HL_CUDA(cudaMemPrefetchAsync(p, bytes, host, 0, stream));
#else
  HL_CUDA(cudaMemPrefetchAsync(p, bytes, cudaCpuDeviceId, stream));
#endif
}

void prefer_host(const std::byte* p, std::size_t bytes) {
#if CUDART_VERSION >= 13000
  cudaMemLocation host{};
  host.type = cudaMemLocationTypeHost;
  HL_CUDA(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, host));
#else
  HL_CUDA(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId));
#endif
}

// The buffer holds the sentinel (C); a kernel held behind the gate writes the data (A), the
// prefetch to the CPU is queued after it, and the host reads the buffer after `fence`.
TrialObservation read_after_prefetch(Rig& rig, const TrialCase& c, FenceKind fence, const TrialSettings& s) {
  rig.check_fits(c);
  const ManagedBytes managed = allocate_managed(kMaxHostOffset + c.bytes);
  const std::span<std::byte> buffer{managed.get() + c.host_offset, c.bytes};
  std::byte* const seen = rig.snapshot().data();
  Stream stream(c.stream);
  fill_pattern(buffer, c.pattern, PatternVersion::Sentinel);

  TrialObservation obs;
  {
    HeldStream held(c.hold(s), stream.get(), fence);
    // Issued together, so that a prefetch or advice that waited for the stream is noticed.
    obs.call_blocked = held.issue([&] {
      enqueue_device_fill(buffer.data(), c.bytes, c.pattern, PatternVersion::Original, stream.get());
      if (c.params.as<Hint>(kHint) == Hint::AdviseAndPrefetch) prefer_host(buffer.data(), c.bytes);
      prefetch_to_host(buffer.data(), c.bytes, stream.get());
    });
    s.guard().fence(fence, stream.get());
    std::memcpy(seen, buffer.data(), c.bytes);  // "the data is on the host now"
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  obs.seen = take_census({seen, c.bytes}, c.pattern);  // C: read before the kernel wrote
  obs.settled = take_census(buffer, c.pattern);
  obs.hazard_visible = !obs.seen.all_original();
  obs.data_correct = obs.seen.all_original() && obs.settled->all_original();
  return obs;
}

TrialFn reader(FenceKind fence) {
  return [fence](Rig& rig, const TrialCase& c, const TrialSettings& s) { return read_after_prefetch(rig, c, fence, s); };
}

Hazard managed_prefetch_not_a_fence() {
  CaseSpace space;  // the case's host memory kind is not used: the buffer is always managed
  space.parameters = {kHint};
  // Every trial migrates the buffer's pages to the GPU and back; past a few 2 MiB blocks a larger
  // buffer only costs time.
  space.max_bytes = std::size_t{8} << 20;
  return Hazard{
      .id = "managed-prefetch-not-a-fence",
      .title = "Reading managed memory right after cudaMemPrefetchAsync to the CPU, before the kernel finished",
      .rules = {{"CUDA Runtime API reference", "cudaMemPrefetchAsync",
                 "The prefetch is enqueued in the stream and is asynchronous with respect to the host; it is not "
                 "required for functionality and only serves performance."},
                {"CUDA Runtime API reference", "cudaMemAdvise",
                 "Advice describes how memory will be used; it changes where pages live and who maps them, not when "
                 "queued work completes."},
                {"CUDA C++ Programming Guide", "Unified Memory Programming: Coherency and Concurrency",
                 "The host may rely on a kernel's writes to managed memory only after synchronizing with the kernel "
                 "(stream, event or device synchronization)."}},
      .requirements = {requires_concurrent_managed_access(kWithoutConcurrentAccess)},
      .explanation =
          "A common way to bring a kernel's result back in managed memory is to prefetch it to the CPU before "
          "reading it, so the host does not fault page by page: cudaMemPrefetchAsync(ptr, n, CPU, stream). It "
          "reads like 'bring the data here', and some code then reads the buffer at once. But the prefetch is "
          "only queued, behind the kernel on the same stream; the call returns before the kernel has run, and "
          "it moves pages, it does not wait for writes. cudaMemAdvise is a hint about placement and waits for "
          "nothing either. The positive control holds the stream closed behind a gate, queues a kernel that "
          "writes the buffer and the prefetch (parameter hint: with or without cudaMemAdvise(SetPreferredLocation, "
          "CPU) first), and reads the buffer: the host always reads the old bytes. Each guard waits for the "
          "stream (cudaStreamSynchronize, or an event recorded after the prefetch) before reading; the "
          "prefetch still saves the page faults. A prefetch or advice call that waits for the stream makes a "
          "control trial inconclusive and shows in the guards' blocking profile.",
      .variants = {make_variant(VariantKind::Control, "unsafe-read-after-prefetch",
                                "read the managed buffer right after cudaMemPrefetchAsync(CPU) returns", space,
                                reader(FenceKind::None)),
                   make_variant(VariantKind::Guard, "stream-synchronize",
                                "cudaStreamSynchronize(stream) after the prefetch, before the host reads", space,
                                reader(FenceKind::StreamSynchronize)),
                   make_variant(VariantKind::Guard, "event-synchronize",
                                "cudaEventRecord after the prefetch, cudaEventSynchronize before the host reads", space,
                                reader(FenceKind::EventSynchronize))},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::managed_prefetch_not_a_fence)
