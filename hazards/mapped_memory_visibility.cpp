// Mapped (zero-copy) host memory: a kernel writes data and then a "ready" flag straight into
// host memory while the host polls the flag. Whether the host can see the flag before the data
// depends on ordering the kernel did not ask for; with __threadfence_system and a release store,
// the data is always there first.
#include <atomic>
#include <chrono>
#include <thread>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

TrialObservation publish_through_mapped_memory(Rig& rig, const TrialCase& c, bool fenced, const TrialSettings& s) {
  // The data goes to mapped memory after the case's offset; the flag sits in a page of its own.
  HostBuffer& mapped = rig.host(HostMemoryKind::Mapped);
  const std::span<std::byte> data = mapped.span().subspan(c.host_offset, c.bytes);
  HostBuffer flag_page(HostMemoryKind::Mapped, sizeof(unsigned));
  auto* flag = reinterpret_cast<unsigned*>(flag_page.data());
  fill_pattern(data, c.pattern, PatternVersion::Sentinel);
  *flag = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);

  Stream stream(c.stream);
  auto* device_data = static_cast<std::byte*>(mapped.device_pointer()) + c.host_offset;
  enqueue_publish(device_data, c.bytes, c.pattern, static_cast<unsigned*>(flag_page.device_pointer()), fenced,
                  stream.get());

  // The host waits for the flag, then reads the data at once, while the kernel may still be running.
  TrialObservation obs;
  const auto deadline = std::chrono::steady_clock::now() + s.gate_timeout;
  while (std::atomic_ref<unsigned>(*flag).load(std::memory_order_acquire) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      obs.gate_timed_out = true;
      break;
    }
    std::this_thread::yield();
  }
  std::memcpy(rig.snapshot().data(), data.data(), c.bytes);
  HL_CUDA(cudaStreamSynchronize(stream.get()));
  obs.seen = take_census({rig.snapshot().data(), c.bytes}, c.pattern);
  obs.settled = take_census(data, c.pattern);
  obs.hazard_visible = !obs.seen.all_original();  // the flag arrived before the data
  obs.data_correct = obs.seen.all_original() && obs.settled->all_original();
  return obs;
}

Hazard mapped_memory_visibility() {
  CaseSpace space;
  space.host_kinds = {HostMemoryKind::Mapped};
  space.streams = {StreamKind::NonBlocking, StreamKind::Blocking};
  space.gates = {GateKind::HostFunction};
  space.max_bytes = std::size_t{1} << 20;  // one block writes it all across the bus, byte by byte
  return Hazard{
      .id = "mapped-memory-visibility",
      .title = "A kernel's writes to mapped host memory, seen by a host polling a flag",
      .rules = {{"CUDA C++ Programming Guide", "Memory Fence Functions",
                 "__threadfence_system orders a thread's writes as observed by all threads, including host "
                 "threads, through page-locked host memory."},
                {"CUDA C++ Programming Guide", "Mapped Memory",
                 "Mapped memory is accessed by kernels and host concurrently; synchronize through streams, "
                 "events or fences to avoid read-after-write hazards."}},
      .requirements = {requires_can_map_host_memory()},
      .explanation =
          "With mapped memory a kernel can hand results to a running host thread without any copy: write the "
          "data, then write a flag the host polls. The CUDA memory model only promises that the host sees the "
          "data before the flag if the kernel orders the two, with __threadfence_system (or a system-scope "
          "release store) after the data and, across threads, a barrier before the flag. The observation "
          "runs the unordered version and reports how often the host saw the flag before all of the data on "
          "this machine: zero here is no licence, since another GPU, CPU or link may reorder. The rule runs "
          "the ordered version and requires the data every time. A mutation check is not possible for this "
          "fence: the unordered version is not made to fail on purpose, only observed.",
      .variants = {make_variant(VariantKind::Observation, "unfenced-flag",
                                "data, then a plain volatile flag store, no fence", space,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return publish_through_mapped_memory(rig, c, false, s);
                                }),
                   make_variant(VariantKind::Rule, "threadfence-system-and-release",
                                "data, __threadfence_system, barrier, system-scope release store of the flag", space,
                                [](Rig& rig, const TrialCase& c, const TrialSettings& s) {
                                  return publish_through_mapped_memory(rig, c, true, s);
                                })},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::mapped_memory_visibility)
