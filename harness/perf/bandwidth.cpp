// Copy bandwidth, timed with CUDA events. For page-locked memory the copies of a repeat are queued
// behind a gate first, so they run back to back and the events time the copy engine alone (the
// method of NVIDIA's nvbandwidth, which holds the stream with a spinning kernel). Pageable copies
// cannot be queued behind a gate (the call stages data and may wait), so their events bracket the
// calls as they run.
#include <algorithm>
#include <optional>

#include "cuda/check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/stream.hpp"
#include "hold/gate.hpp"
#include "perf/perf.hpp"
#include "trial/patterns.hpp"

namespace hazardlab::perf {
namespace {

constexpr std::chrono::milliseconds kGateTimeout{60'000};

int copies_for(const Profile& p, std::size_t bytes) {
  const std::size_t wanted = std::max<std::size_t>(1, p.bytes_per_repeat / bytes);
  return static_cast<int>(std::min<std::size_t>(wanted, static_cast<std::size_t>(p.max_copies_per_repeat)));
}

void copy(Direction d, std::byte* host, std::byte* device, std::size_t bytes, cudaStream_t s) {
  if (d == Direction::HostToDevice)
    HL_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, s));
  else
    HL_CUDA(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, s));
}

// One timed repeat: `copies` copies between events; returns GB/s.
double timed_repeat(Direction d, HostMemoryKind kind, std::byte* host, std::byte* device, std::size_t bytes, int copies,
                    cudaStream_t stream) {
  Event start(cudaEventDefault), stop(cudaEventDefault);
  std::unique_ptr<Gate> gate;
  if (is_page_locked(kind)) gate = close_gate(GateKind::HostFunction, stream, kGateTimeout);
  start.record(stream);
  for (int i = 0; i < copies; ++i) copy(d, host, device, bytes, stream);
  stop.record(stream);
  if (gate) gate->open(GateOpener::Host);
  stop.synchronize();
  float ms = 0;
  HL_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return static_cast<double>(bytes) * copies / (ms / 1e3) / 1e9;
}

}  // namespace

std::vector<BandwidthPoint> measure_bandwidth(const Profile& p, const std::vector<HostMemoryKind>& kinds) {
  std::vector<BandwidthPoint> points;
  const std::size_t largest = *std::max_element(p.sizes.begin(), p.sizes.end());
  DeviceBuffer device(largest);
  Stream stream(StreamKind::NonBlocking);
  for (HostMemoryKind kind : kinds) {
    // One host buffer at a time keeps page-locked memory within the budget.
    const std::size_t usable = is_page_locked(kind) ? std::min(largest, p.pinned_budget) : largest;
    HostBuffer host(kind, usable);
    fill_pattern(host.span(), PatternSpec{}, PatternVersion::Original);
    for (Direction d : {Direction::HostToDevice, Direction::DeviceToHost}) {
      for (std::size_t bytes : p.sizes) {
        if (bytes > usable) continue;
        const int copies = copies_for(p, bytes);
        copy(d, host.data(), device.data(), bytes, stream.get());  // warm-up
        HL_CUDA(cudaStreamSynchronize(stream.get()));
        std::vector<double> rates;
        for (int r = 0; r < p.repeats; ++r) {
          rates.push_back(timed_repeat(d, kind, host.data(), device.data(), bytes, copies, stream.get()));
        }
        BandwidthPoint b{d,
                         kind,
                         bytes,
                         copies,
                         median(rates),
                         *std::min_element(rates.begin(), rates.end()),
                         *std::max_element(rates.begin(), rates.end())};
        points.push_back(b);
      }
    }
  }
  return points;
}

ConcurrentResult measure_concurrent(const Profile& p) {
  const std::size_t bytes = std::min(p.concurrent_bytes, p.pinned_budget / 2);
  HostBuffer up(HostMemoryKind::Pinned, bytes), down(HostMemoryKind::Pinned, bytes);
  DeviceBuffer up_device(bytes), down_device(bytes);
  Stream h2d(StreamKind::NonBlocking), d2h(StreamKind::NonBlocking);
  const int copies = copies_for(p, bytes);
  ConcurrentResult c;
  c.bytes = bytes;
  std::vector<double> alone_up, alone_down, both_up, both_down;
  copy(Direction::HostToDevice, up.data(), up_device.data(), bytes, h2d.get());
  copy(Direction::DeviceToHost, down.data(), down_device.data(), bytes, d2h.get());
  HL_CUDA(cudaDeviceSynchronize());
  for (int r = 0; r < p.repeats; ++r) {
    alone_up.push_back(timed_repeat(Direction::HostToDevice, HostMemoryKind::Pinned, up.data(), up_device.data(), bytes,
                                    copies, h2d.get()));
    alone_down.push_back(timed_repeat(Direction::DeviceToHost, HostMemoryKind::Pinned, down.data(), down_device.data(),
                                      bytes, copies, d2h.get()));
    // Both directions released together: one gate, the second stream waits for the first.
    Event start(cudaEventDefault), stop_up(cudaEventDefault), stop_down(cudaEventDefault);
    auto gate = close_gate(GateKind::HostFunction, h2d.get(), kGateTimeout);
    start.record(h2d.get());
    HL_CUDA(cudaStreamWaitEvent(d2h.get(), start.get(), 0));
    for (int i = 0; i < copies; ++i) {
      copy(Direction::HostToDevice, up.data(), up_device.data(), bytes, h2d.get());
      copy(Direction::DeviceToHost, down.data(), down_device.data(), bytes, d2h.get());
    }
    stop_up.record(h2d.get());
    stop_down.record(d2h.get());
    gate->open(GateOpener::Host);
    stop_up.synchronize();
    stop_down.synchronize();
    float up_ms = 0, down_ms = 0;
    HL_CUDA(cudaEventElapsedTime(&up_ms, start.get(), stop_up.get()));
    HL_CUDA(cudaEventElapsedTime(&down_ms, start.get(), stop_down.get()));
    both_up.push_back(static_cast<double>(bytes) * copies / (up_ms / 1e3) / 1e9);
    both_down.push_back(static_cast<double>(bytes) * copies / (down_ms / 1e3) / 1e9);
  }
  c.h2d_alone_gbps = median(alone_up);
  c.d2h_alone_gbps = median(alone_down);
  c.h2d_gbps = median(both_up);
  c.d2h_gbps = median(both_down);
  return c;
}

}  // namespace hazardlab::perf
