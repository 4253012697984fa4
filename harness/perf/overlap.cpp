// Copy/compute overlap: a kernel and a copy of about the same length, run alone and then together,
// on one stream or on two. Everything is timed with events on the GPU's clock.
#include <algorithm>

#include "cuda/check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/stream.hpp"
#include "hold/sleep.hpp"
#include "perf/perf.hpp"
#include "trial/patterns.hpp"

namespace hazardlab::perf {
namespace {

float elapsed_ms(Event& from, Event& to) {
  to.synchronize();
  float ms = 0;
  HL_CUDA(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return ms;
}

double copy_alone_ms(std::byte* host, std::byte* device, std::size_t bytes, cudaStream_t s) {
  Event start(cudaEventDefault), stop(cudaEventDefault);
  start.record(s);
  HL_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, s));
  stop.record(s);
  return elapsed_ms(start, stop);
}

double kernel_alone_ms(std::chrono::nanoseconds length, cudaStream_t s) {
  Event start(cudaEventDefault), stop(cudaEventDefault);
  start.record(s);
  enqueue_sleep(s, length);
  stop.record(s);
  return elapsed_ms(start, stop);
}

// The kernel first, then the copy: on the same stream, or on a second stream released together.
double both_ms(std::byte* host, std::byte* device, std::size_t bytes, std::chrono::nanoseconds length, cudaStream_t a,
               cudaStream_t b) {
  Event start(cudaEventDefault), kernel_done(cudaEventDefault), copy_done(cudaEventDefault);
  start.record(a);
  if (b != a) HL_CUDA(cudaStreamWaitEvent(b, start.get(), 0));
  enqueue_sleep(a, length);
  kernel_done.record(a);
  HL_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, b));
  copy_done.record(b);
  return std::max(elapsed_ms(start, kernel_done), elapsed_ms(start, copy_done));
}

}  // namespace

std::vector<OverlapResult> measure_overlap(const Profile& p) {
  const std::size_t bytes = std::min(p.overlap_bytes, p.pinned_budget);
  DeviceBuffer device(bytes);
  Stream a(StreamKind::NonBlocking), b(StreamKind::NonBlocking);
  std::vector<OverlapResult> results;
  for (HostMemoryKind kind : {HostMemoryKind::Pageable, HostMemoryKind::Pinned}) {
    HostBuffer host(kind, bytes);
    fill_pattern(host.span(), PatternSpec{}, PatternVersion::Original);
    (void)copy_alone_ms(host.data(), device.data(), bytes, a.get());  // warm-up
    std::vector<double> copies;
    for (int r = 0; r < p.repeats; ++r) copies.push_back(copy_alone_ms(host.data(), device.data(), bytes, a.get()));
    const double copy_ms = median(copies);
    // A kernel as long as the copy: the case where overlap matters most.
    const auto length = std::chrono::nanoseconds(static_cast<long long>(copy_ms * 1e6));
    std::vector<double> kernels;
    for (int r = 0; r < p.repeats; ++r) kernels.push_back(kernel_alone_ms(length, a.get()));
    const double kernel_ms = median(kernels);
    for (bool separate : {false, true}) {
      std::vector<double> together;
      for (int r = 0; r < p.repeats; ++r) {
        together.push_back(both_ms(host.data(), device.data(), bytes, length, a.get(), separate ? b.get() : a.get()));
      }
      const double both = median(together);
      results.push_back({kind, separate, bytes, kernel_ms, copy_ms, both, overlap_fraction(kernel_ms, copy_ms, both)});
    }
  }
  return results;
}

}  // namespace hazardlab::perf
