// Copy bandwidth, timed with CUDA events the way NVIDIA's nvbandwidth times its copy-engine
// figures: the stream is held closed while warm-up copies and then a loop of copies are queued,
// the loop is bracketed by events, and the stream is released; the copy engine then runs them
// back to back and the events time the loop alone. Pageable copies cannot be queued behind a
// gate (the call stages data through the driver and may wait for the stream), so their events
// bracket the calls as they run.
//
// Why the large pinned figures are confirmed on a fresh buffer: measured on an H100 in a VM, one
// 256 MiB pinned buffer moved host-to-device at 45.1 GB/s in all 12 of its copies while the next
// allocation of the same size ran at 55.1, and device-to-host loops dipped to 25-36 GB/s for a
// few copies in a row. A figure is a property of the link only if it does not depend on which
// pages one allocation happened to get, so a miss is measured again on new memory.
#include <algorithm>

#include "cuda/check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/stream.hpp"
#include "hold/gate.hpp"
#include "perf/perf.hpp"
#include "trial/patterns.hpp"

namespace hazardlab::perf {
namespace {

constexpr std::chrono::milliseconds kGateTimeout{60'000};

void copy(Direction d, std::byte* host, std::byte* device, std::size_t bytes, cudaStream_t s) {
  if (d == Direction::HostToDevice)
    HL_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, s));
  else
    HL_CUDA(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, s));
}

float elapsed(const Event& start, const Event& stop) {
  float ms = 0;
  HL_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

// One sample: warm-up copies, then `copies` copies between events; returns GB/s of the loop.
double timed_loop(const Profile& p, Direction d, HostMemoryKind kind, std::byte* host, std::byte* device,
                  std::size_t bytes, int copies, cudaStream_t stream) {
  Event start(cudaEventDefault), stop(cudaEventDefault);
  std::unique_ptr<Gate> gate;
  if (is_page_locked(kind)) gate = close_gate(GateKind::HostFunction, stream, kGateTimeout);
  for (int i = 0; i < p.warmup_copies; ++i) copy(d, host, device, bytes, stream);
  start.record(stream);
  for (int i = 0; i < copies; ++i) copy(d, host, device, bytes, stream);
  stop.record(stream);
  if (gate) gate->open(GateOpener::Host);
  stop.synchronize();
  if (gate && gate->timed_out()) throw std::runtime_error("the bandwidth loop's gate timed out");
  return gbps_of(bytes, copies, elapsed(start, stop));
}

Attempt measure_attempt(const Profile& p, Direction d, HostMemoryKind kind, std::byte* host, std::byte* device,
                        std::size_t bytes, int copies, cudaStream_t stream) {
  std::vector<double> samples;
  for (int s = 0; s < p.samples; ++s) samples.push_back(timed_loop(p, d, kind, host, device, bytes, copies, stream));
  return attempt_of(std::move(samples));
}

// Written once before it is timed, whatever its kind: every page exists and has been touched, as
// in the runs whose figures matched nvbandwidth within 1% (leaving page-locked buffers unwritten
// saved 0.3 s, and 64 MiB figures then came out up to 5.7% below nvbandwidth's on an H100).
HostBuffer placed(HostMemoryKind kind, std::size_t bytes) {
  HostBuffer host(kind, bytes);
  fill_pattern(host.span(), PatternSpec{}, PatternVersion::Original);
  return host;
}

bool is_checked(const Profile& p, HostMemoryKind kind, std::size_t bytes) {
  return kind == HostMemoryKind::Pinned &&
         std::find(p.checked_sizes.begin(), p.checked_sizes.end(), bytes) != p.checked_sizes.end();
}

// The sizes measured for a kind; the unchecked ones share one buffer of the largest of them (0: none),
// each checked size gets its own.
struct SizesOfKind {
  std::vector<std::size_t> sizes;
  std::size_t shared_bytes = 0;
};

SizesOfKind sizes_of(const Profile& p, HostMemoryKind kind) {
  SizesOfKind k;
  k.sizes = kind == HostMemoryKind::Pinned ? p.pinned_sizes : p.sizes;
  if (is_page_locked(kind)) std::erase_if(k.sizes, [&](std::size_t b) { return b > p.pinned_budget / 2; });
  for (std::size_t b : k.sizes)
    if (!is_checked(p, kind, b)) k.shared_bytes = std::max(k.shared_bytes, b);
  return k;
}

std::size_t bidirectional_bytes(const Profile& p) { return std::min(p.bidirectional_bytes, p.pinned_budget / 3); }

}  // namespace

void PreparedBuffers::prepare(HostMemoryKind kind, std::size_t bytes) {
  ready_.emplace(std::pair{kind, bytes}, placed(kind, bytes));
}

HostBuffer PreparedBuffers::take(HostMemoryKind kind, std::size_t bytes) {
  const auto it = ready_.find({kind, bytes});
  if (it == ready_.end()) return placed(kind, bytes);
  HostBuffer buffer = std::move(it->second);
  ready_.erase(it);
  return buffer;
}

std::size_t PreparedBuffers::bytes_ready() const noexcept {
  std::size_t total = 0;
  for (const auto& [key, buffer] : ready_) total += buffer.size();
  return total;
}

PreparedBuffers prepare_bandwidth_buffers(const Profile& p, const std::vector<HostMemoryKind>& kinds) {
  // Page-locked memory stays within the pinned budget all at once; what does not fit is made when taken.
  PreparedBuffers buffers;
  std::size_t page_locked = 0;
  const auto prepare = [&](HostMemoryKind kind, std::size_t bytes) {
    if (is_page_locked(kind) && page_locked + bytes > p.pinned_budget) return;
    if (is_page_locked(kind)) page_locked += bytes;
    buffers.prepare(kind, bytes);
  };
  for (HostMemoryKind kind : kinds) {
    const SizesOfKind k = sizes_of(p, kind);
    for (std::size_t bytes : k.sizes)
      if (is_checked(p, kind, bytes)) prepare(kind, bytes);
    if (k.shared_bytes) prepare(kind, k.shared_bytes);
  }
  const std::size_t bytes = bidirectional_bytes(p);
  prepare(HostMemoryKind::Pinned, bytes);
  prepare(HostMemoryKind::Pinned, 2 * bytes);
  return buffers;
}

std::vector<BandwidthPoint> measure_bandwidth(const Profile& p, const std::vector<HostMemoryKind>& kinds,
                                              const FloorOf& floor_gbps, PreparedBuffers& buffers) {
  std::vector<BandwidthPoint> points;
  Stream stream(StreamKind::NonBlocking);
  for (HostMemoryKind kind : kinds) {
    const auto [sizes, shared_bytes] = sizes_of(p, kind);
    if (sizes.empty()) continue;
    std::optional<HostBuffer> shared;
    if (shared_bytes) shared.emplace(buffers.take(kind, shared_bytes));
    DeviceBuffer device(*std::max_element(sizes.begin(), sizes.end()));
    for (std::size_t bytes : sizes) {
      const bool checked = is_checked(p, kind, bytes);
      const int copies = checked ? p.copies_for(bytes) : p.unchecked_copies_for(bytes);
      std::optional<HostBuffer> own;
      if (checked) own.emplace(buffers.take(kind, bytes));
      HostBuffer& first = checked ? *own : *shared;
      for (Direction d : {Direction::HostToDevice, Direction::DeviceToHost}) {
        bool first_attempt = true;
        const auto measure = [&] {
          if (first_attempt) {
            first_attempt = false;
            return measure_attempt(p, d, kind, first.data(), device.data(), bytes, copies, stream.get());
          }
          HostBuffer fresh = placed(kind, bytes);
          return measure_attempt(p, d, kind, fresh.data(), device.data(), bytes, copies, stream.get());
        };
        const double floor = checked ? floor_gbps(d, bytes) : 0;
        const auto meets = [&](const Attempt& a) { return a.spread.median >= floor; };
        const ConfirmedFigure figure = confirm(measure, meets, floor > 0 ? kConfirmAttempts : 1);
        points.push_back(point_of(d, kind, bytes, copies, figure));
        points.back().floor_gbps = floor;
      }
    }
  }
  return points;
}

std::vector<BidirectionalResult> measure_bidirectional(const Profile& p, PreparedBuffers& buffers) {
  const std::size_t bytes = bidirectional_bytes(p);
  // The other direction copies twice as much per copy, so that it runs for the whole measured loop.
  HostBuffer host = buffers.take(HostMemoryKind::Pinned, bytes);
  HostBuffer other_host = buffers.take(HostMemoryKind::Pinned, 2 * bytes);
  DeviceBuffer device(bytes), other_device(2 * bytes);
  Stream main(StreamKind::NonBlocking), side(StreamKind::NonBlocking);
  const int copies = p.copies_for(bytes);
  std::vector<BidirectionalResult> results;
  for (Direction measured : {Direction::HostToDevice, Direction::DeviceToHost}) {
    const Direction other = measured == Direction::HostToDevice ? Direction::DeviceToHost : Direction::HostToDevice;
    std::vector<double> samples;
    for (int s = 0; s < p.samples; ++s) {
      Event released(cudaEventDisableTiming), start(cudaEventDefault), stop(cudaEventDefault);
      auto gate = close_gate(GateKind::HostFunction, main.get(), kGateTimeout);
      released.record(main.get());
      HL_CUDA(cudaStreamWaitEvent(side.get(), released.get(), 0));
      for (int i = 0; i < p.warmup_copies; ++i) {
        copy(measured, host.data(), device.data(), bytes, main.get());
        copy(other, other_host.data(), other_device.data(), 2 * bytes, side.get());
      }
      start.record(main.get());
      HL_CUDA(cudaStreamWaitEvent(side.get(), start.get(), 0));
      for (int i = 0; i < copies; ++i) {
        copy(measured, host.data(), device.data(), bytes, main.get());
        copy(other, other_host.data(), other_device.data(), 2 * bytes, side.get());
      }
      stop.record(main.get());
      gate->open(GateOpener::Host);
      stop.synchronize();
      HL_CUDA(cudaStreamSynchronize(side.get()));
      if (gate->timed_out()) throw std::runtime_error("the bidirectional loop's gate timed out");
      samples.push_back(gbps_of(bytes, copies, elapsed(start, stop)));
    }
    results.push_back({measured, bytes, spread_of(std::move(samples))});
  }
  return results;
}

}  // namespace hazardlab::perf
