// What the checker's own bookkeeping costs a watched copy, without a GPU: a pinned range, then a loop of an
// asynchronous copy of one of its pages and the synchronization of its stream, through the Checker and the
// key plan with the fault path's tests' played keys (no key register is touched, so it runs on any x86-64).
// It prints nanoseconds per copy and synchronization; run it under `valgrind --tool=callgrind` for the
// instructions and where they go. On a GPU, check-overhead measures the whole path (overhead_benchmark.py).
//
//   copy-path-benchmark [--copies N] [--bytes B] [--download] [--evict KIB]
//
// In a real program the driver runs between the checker's calls and takes the caches: --evict reads a buffer
// of KIB KiB between the copy and the synchronization and after it, so that the bookkeeping meets the cold
// caches it meets there (the time of those reads is not counted).
//
// Exit 1 when a copy was not watched or its page stayed held after its synchronization: the figure would
// then be of another path. Bad arguments: exit 2.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "checker/fault/fault_handler.hpp"
#include "hazardlab/number_option.hpp"
#include "hazardlab/run_main.hpp"

namespace {

using namespace hazardlab::check;

constexpr std::size_t kRangeBytes = 1 << 20;
alignas(65536) unsigned char range[kRangeBytes];

// Reads `buffer` whole, a cache line at a time; what it read is returned so that the reads are kept.
unsigned evict(const std::vector<unsigned char>& buffer) {
  unsigned sum = 0;
  for (std::size_t i = 0; i < buffer.size(); i += 64) sum += buffer[i];
  return sum;
}

int run(unsigned long long copies, std::size_t bytes, bool download, std::size_t evict_kib) {
  HostPageProtector protector;
  protector.play_keys(1, 2, 2688, {3, 4, 5, 6, 7, 8, 9, 10});  // as test_key_fault_path plays them
  Checker checker{protector};
  const auto base = reinterpret_cast<std::uintptr_t>(range);
  checker.pinned_allocated(base, kRangeBytes, PinnedKind::HostAlloc);
  const StreamKey stream{1, 0x1000};
  checker.stream_created(stream, StreamKind::Blocking);
  const CopyEnd host{MemoryKind::PinnedHost, HostFootprint::linear(base, bytes)}, device{MemoryKind::Device, {}};
  const AsyncCopy copy = download ? AsyncCopy{"cuMemcpyDtoHAsync_v2", stream, device, host, bytes, 0}
                                  : AsyncCopy{"cuMemcpyHtoDAsync_v2", stream, host, device, bytes, 0};

  std::vector<unsigned char> cold(evict_kib * 1024, 1);
  unsigned kept = 0;
  double ns = 0, sync_ns = 0;
  using Clock = std::chrono::steady_clock;
  if (cold.empty()) {
    const auto start = Clock::now();
    for (unsigned long long i = 0; i < copies; ++i) {
      checker.copy_async(copy, [] { return SiteId{7}; });
      checker.stream_synchronized(stream);
    }
    ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  } else {
    for (unsigned long long i = 0; i < copies; ++i) {
      kept += evict(cold);
      const auto t0 = Clock::now();
      checker.copy_async(copy, [] { return SiteId{7}; });
      const auto t1 = Clock::now();
      kept += evict(cold);
      const auto t2 = Clock::now();
      checker.stream_synchronized(stream);
      const auto t3 = Clock::now();
      ns += std::chrono::duration<double, std::nano>((t1 - t0) + (t3 - t2)).count();
      sync_ns += std::chrono::duration<double, std::nano>(t3 - t2).count();
    }
  }

  const CheckerStats stats = checker.stats();
  const bool released = checker.access_at(base) == PageAccess::ReadWrite;
  std::printf("%s of %zu bytes: %.0f ns per copy and synchronization (%llu copies, %llu watched)",
              download ? "download" : "upload", bytes, ns / static_cast<double>(copies), copies,
              static_cast<unsigned long long>(stats.copies_watched));
  if (!cold.empty())
    std::printf(", caches evicted before each call; the synchronization alone %.0f ns", sync_ns / static_cast<double>(copies));
  std::printf("\n");
  if (kept == 1) std::printf("\n");  // never: keeps the eviction's reads
  checker.release_everything();
  if (stats.copies_watched != copies || !released) {
    std::fprintf(stderr, "copy-path-benchmark: %s\n",
                 stats.copies_watched != copies ? "not every copy was watched" : "a page stayed held after its sync");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The checker's bookkeeping of a watched copy, timed without a GPU"};
  unsigned long long copies = 200000;
  std::size_t bytes = 4096;
  bool download = false;
  app.add_option("--copies", copies, "copies, each followed by its stream's synchronization")
      ->transform(hazardlab::cli::whole_number(1, 100000000));
  app.add_option("--bytes", bytes, "bytes per copy, in one pinned range of 1 MiB")->transform(hazardlab::cli::whole_number(1, kRangeBytes));
  app.add_flag("--download", download, "device to host (the host end held against every access)");
  std::size_t evict_kib = 0;
  app.add_option("--evict", evict_kib, "KiB read between the checker's calls, as the driver's work would (0: none)")
      ->transform(hazardlab::cli::whole_number(0, std::uint64_t{1} << 20));
  return hazardlab::run_main("copy-path-benchmark", app, argc, argv,
                             [&] { return run(copies, bytes, download, evict_kib); });
}
