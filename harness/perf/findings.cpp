// The seed tutorial's performance claims, measured in C++ on this GPU. Each is a comparison of two
// ways to do the same transfer, timed on the host wall clock around synchronized work, as a user of
// the tutorial would experience it.
#include <chrono>
#include <cstring>
#include <thread>

#include "cuda/check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/stream.hpp"
#include "perf/perf.hpp"
#include "trial/patterns.hpp"

namespace hazardlab::perf {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

template <typename Work>
double median_wall_ms(int repeats, Work work) {
  work();  // warm-up
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(times);
}

// tensor.to("cuda") against tensor.pin_memory().to("cuda"): copy pageable memory directly, or first
// into a freshly allocated pinned buffer (what pin_memory() does) and copy that.
Comparison pin_then_copy(const Profile& p, std::size_t bytes) {
  HostBuffer pageable(HostMemoryKind::Pageable, bytes);
  DeviceBuffer device(bytes);
  fill_pattern(pageable.span(), PatternSpec{}, PatternVersion::Original);
  Comparison c{"pin-then-copy-" + std::to_string(bytes / MiB) + "mib",
               "Is pinning a pageable buffer first, then copying, faster than copying it directly?",
               "cudaMemcpy from pageable memory", "cudaHostAlloc + memcpy into it + cudaMemcpy + cudaFreeHost"};
  c.a_ms = median_wall_ms(p.repeats,
                          [&] { HL_CUDA(cudaMemcpy(device.data(), pageable.data(), bytes, cudaMemcpyHostToDevice)); });
  c.b_ms = median_wall_ms(p.repeats, [&] {
    HostBuffer pinned(HostMemoryKind::Pinned, bytes);
    std::memcpy(pinned.data(), pageable.data(), bytes);
    HL_CUDA(cudaMemcpy(device.data(), pinned.data(), bytes, cudaMemcpyHostToDevice));
  });
  return c;
}

// Many small tensors: to("cuda") each (a synchronization per copy) against to("cuda",
// non_blocking=True) each and one synchronization at the end.
Comparison small_copies(const Profile& p, HostMemoryKind kind) {
  constexpr int kCopies = 1000;
  constexpr std::size_t kBytes = 4000;  // 1000 floats, as in the tutorial
  HostBuffer host(kind, kCopies * kBytes);
  DeviceBuffer device(kCopies * kBytes);
  Stream stream(StreamKind::NonBlocking);
  Comparison c{std::string("small-copies-") + std::string(to_string(kind)),
               "1000 copies of 4000 B from " + std::string(to_string(kind)) +
                   " memory: does queuing them all and synchronizing once beat synchronizing after each?",
               "all queued, one cudaStreamSynchronize", "cudaStreamSynchronize after each copy"};
  c.a_ms = median_wall_ms(p.repeats, [&] {
    for (int i = 0; i < kCopies; ++i) {
      HL_CUDA(cudaMemcpyAsync(device.data() + i * kBytes, host.data() + i * kBytes, kBytes, cudaMemcpyHostToDevice,
                              stream.get()));
    }
    HL_CUDA(cudaStreamSynchronize(stream.get()));
  });
  c.b_ms = median_wall_ms(p.repeats, [&] {
    for (int i = 0; i < kCopies; ++i) {
      HL_CUDA(cudaMemcpyAsync(device.data() + i * kBytes, host.data() + i * kBytes, kBytes, cudaMemcpyHostToDevice,
                              stream.get()));
      HL_CUDA(cudaStreamSynchronize(stream.get()));
    }
  });
  return c;
}

// A pageable buffer sent through pinned staging chunks by `threads` host threads, each with its own
// two staging buffers and stream.
double staged_send_ms(const Profile& p, const HostBuffer& source, DeviceBuffer& device, int threads) {
  constexpr std::size_t kChunk = 4 * MiB;
  const std::size_t chunks = source.size() / kChunk;
  const int device_index = [] {
    int d = 0;
    HL_CUDA(cudaGetDevice(&d));
    return d;
  }();
  std::vector<HostBuffer> staging;
  for (int t = 0; t < 2 * threads; ++t) staging.emplace_back(HostMemoryKind::Pinned, kChunk);
  return median_wall_ms(p.repeats, [&] {
    std::vector<std::thread> workers;
    std::vector<cudaError_t> status(static_cast<std::size_t>(threads), cudaSuccess);
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        cudaError_t rc = cudaSetDevice(device_index);
        cudaStream_t stream = nullptr;
        if (rc == cudaSuccess) rc = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        cudaEvent_t done[2] = {nullptr, nullptr};
        for (auto& e : done) {
          if (rc == cudaSuccess) rc = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        }
        int slot = 0;
        for (std::size_t chunk = static_cast<std::size_t>(t); rc == cudaSuccess && chunk < chunks;
             chunk += static_cast<std::size_t>(threads)) {
          HostBuffer& buffer = staging[static_cast<std::size_t>(2 * t + slot)];
          rc = cudaEventSynchronize(done[slot]);  // the slot's previous copy has read it
          if (rc != cudaSuccess) break;
          std::memcpy(buffer.data(), source.data() + chunk * kChunk, kChunk);
          rc = cudaMemcpyAsync(device.data() + chunk * kChunk, buffer.data(), kChunk, cudaMemcpyHostToDevice, stream);
          if (rc == cudaSuccess) rc = cudaEventRecord(done[slot], stream);
          slot ^= 1;
        }
        if (rc == cudaSuccess && stream) rc = cudaStreamSynchronize(stream);
        for (auto& e : done) {
          if (e) (void)cudaEventDestroy(e);
        }
        if (stream) (void)cudaStreamDestroy(stream);
        status[static_cast<std::size_t>(t)] = rc;
      });
    }
    for (auto& w : workers) w.join();
    for (cudaError_t rc : status) HL_CUDA(rc);
  });
}

Comparison staging_threads(const Profile& p, std::size_t bytes, int threads) {
  HostBuffer source(HostMemoryKind::Pageable, bytes);
  DeviceBuffer device(bytes);
  fill_pattern(source.span(), PatternSpec{}, PatternVersion::Original);
  Comparison c{"staging-threads-" + std::to_string(threads),
               "Staging " + std::to_string(bytes / MiB) + " MiB of pageable data through pinned 4 MiB chunks: do " +
                   std::to_string(threads) + " host threads beat one?",
               std::to_string(threads) + " threads", "1 thread"};
  c.a_ms = staged_send_ms(p, source, device, threads);
  c.b_ms = staged_send_ms(p, source, device, 1);
  return c;
}

}  // namespace

std::vector<Comparison> measure_tutorial_findings(const Profile& p) {
  const std::size_t big = std::min(p.overlap_bytes, p.pinned_budget / 2);
  return {pin_then_copy(p, 4 * MiB), pin_then_copy(p, big), small_copies(p, HostMemoryKind::Pageable),
          small_copies(p, HostMemoryKind::Pinned), staging_threads(p, big, 4)};
}

}  // namespace hazardlab::perf
