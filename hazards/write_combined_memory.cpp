// Write-combined pinned memory: fast for the host to write and the GPU to read, very slow for
// the host to read, and its stores are weakly ordered. Async copies from it carry the same
// hazard as any pinned memory.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

constexpr std::size_t kReadBytes = std::size_t{8} << 20;
constexpr int kRepeats = 5;

// Median time for the host to read `bytes` of `from` into ordinary memory.
double median_read_seconds(const std::byte* from, std::byte* to, std::size_t bytes) {
  std::vector<double> times;
  for (int i = 0; i < kRepeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(to, from, bytes);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

VariantResult measure_host_reads(const DeviceFingerprint&, const Settings& settings) {
  const std::size_t bytes = std::min(kReadBytes, settings.max_transfer_bytes);
  HostBuffer combined(HostMemoryKind::WriteCombined, bytes);
  HostBuffer cached(HostMemoryKind::Pinned, bytes);
  HostBuffer sink(HostMemoryKind::Pageable, bytes);
  const PatternSpec pattern;
  fill_pattern(combined.span().first(bytes), pattern, PatternVersion::Original);
  fill_pattern(cached.span().first(bytes), pattern, PatternVersion::Original);
  const double wc = median_read_seconds(combined.data(), sink.data(), bytes);
  const bool intact = take_census(sink.span().first(bytes), pattern).all_original();
  const double pinned = median_read_seconds(cached.data(), sink.data(), bytes);

  VariantResult r;
  r.outcome = Outcome::Observed;
  r.trials = 2 * kRepeats;
  char text[400];
  const double ratio = wc / pinned;
  std::snprintf(text, sizeof text,
                "host reads of %zu B (median of %d): write-combined %.2f GB/s, cached pinned %.2f GB/s, a time ratio "
                "of %.2f%s; the data read back %s",
                bytes, kRepeats, static_cast<double>(bytes) / wc / 1e9, static_cast<double>(bytes) / pinned / 1e9,
                ratio,
                ratio < 2 ? " (no slowdown measured: the host may not map this memory write-combined, as a hypervisor "
                            "can override the memory type)"
                          : "",
                intact ? "intact" : "WRONG");
  r.reason = text;
  r.finding = text;
  r.observations.host_read = HostReadSpeed{static_cast<double>(bytes) / wc / 1e9, static_cast<double>(bytes) / pinned / 1e9};
  return r;
}

Hazard write_combined_memory() {
  CaseSpace space;
  space.host_kinds = {HostMemoryKind::WriteCombined};
  const Scenario scenario = mutate_source_after_h2d(CopyCall::MemcpyAsync);
  return Hazard{
      .id = "write-combined-memory",
      .title = "Write-combined pinned memory: right data, slow host reads, weakly ordered stores",
      .rules = {{"CUDA Runtime API reference", "cudaHostAlloc (cudaHostAllocWriteCombined)",
                 "Write-combined memory is not cached by the host: it can transfer faster across the bus, but "
                 "host reads from it are prohibitively slow; use it for buffers the host only writes."},
                {"Intel 64 and IA-32 Architectures Software Developer's Manual", "Write Combining (WC)",
                 "Write-combining stores are weakly ordered: a fence (SFENCE or MFENCE) is needed before "
                 "another agent is signalled to read them."}},
      .requirements = {},
      .explanation =
          "cudaHostAllocWriteCombined gives page-locked memory that the CPU does not cache: host writes are "
          "gathered into bus-sized bursts, which suits staging buffers the host fills and the GPU reads. "
          "Three things follow. Copies from it are ordinary pinned copies, so rewriting it after "
          "cudaMemcpyAsync is the same hazard (the positive control) with the same fix (the guard). Host "
          "reads bypass the cache and are many times slower (the observation measures by how much on this "
          "machine). And its stores are weakly ordered, so the host must fence them before signalling that "
          "the data is ready; the suite's gates issue a full fence before they open for that reason. Whether "
          "the slowdown shows depends on the host honouring the memory type, so it is measured and reported, "
          "never asserted.",
      .variants = {make_variant(VariantKind::Control, "unsafe-mutate-after-call",
                                "rewrite the write-combined source right after cudaMemcpyAsync returns", space,
                                scenario(FenceKind::None)),
                   guard(FenceKind::StreamSynchronize, space, scenario),
                   measurement("host-read-speed", "host reads of write-combined memory against cached pinned memory",
                               measure_host_reads)},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::write_combined_memory)
