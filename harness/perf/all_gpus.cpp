// Every GPU of the host at once: one thread per GPU, each bound to its GPU's CPUs with its own
// pinned buffer, all loops released together. The sum is what the host delivers when a job uses
// every GPU; each GPU's share, set beside its figure measured alone, shows what they contend for
// (the CPU's memory, a shared PCIe switch or root port).
#include <latch>
#include <thread>

#include "cuda/check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/stream.hpp"
#include "hold/gate.hpp"
#include "perf/perf.hpp"
#include "trial/patterns.hpp"

namespace hazardlab::perf {

AllGpusResult measure_all_gpus_at_once(const Profile& p, const std::vector<DeviceFingerprint>& devices, Direction d) {
  const std::size_t bytes = std::min<std::size_t>(p.bidirectional_bytes, p.pinned_budget / (2 * devices.size()));
  const int copies = p.copies_for(bytes);
  AllGpusResult result{d, bytes, {}, 0};
  std::vector<double> gbps(devices.size(), 0);
  std::vector<std::string> errors(devices.size());
  std::latch queued(static_cast<std::ptrdiff_t>(devices.size())), release(1);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    threads.emplace_back([&, i] {
      bool counted = false;
      try {
        bind_to_device(devices[i]);
        DeviceScope scope(devices[i].index);
        HostBuffer host(HostMemoryKind::Pinned, bytes);
        fill_pattern(host.span(), PatternSpec{}, PatternVersion::Original);
        DeviceBuffer device(bytes);
        Stream stream(StreamKind::NonBlocking);
        Event start(cudaEventDefault), stop(cudaEventDefault);
        auto gate = close_gate(GateKind::HostFunction, stream.get(), std::chrono::milliseconds(60'000));
        const auto copy = [&] {
          if (d == Direction::HostToDevice)
            HL_CUDA(cudaMemcpyAsync(device.data(), host.data(), bytes, cudaMemcpyHostToDevice, stream.get()));
          else
            HL_CUDA(cudaMemcpyAsync(host.data(), device.data(), bytes, cudaMemcpyDeviceToHost, stream.get()));
        };
        for (int w = 0; w < p.warmup_copies; ++w) copy();
        start.record(stream.get());
        for (int c = 0; c < copies; ++c) copy();
        stop.record(stream.get());
        queued.count_down();
        counted = true;
        release.wait();
        gate->open(GateOpener::Host);
        stop.synchronize();
        float ms = 0;
        HL_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
        gbps[i] = gbps_of(bytes, copies, ms);
      } catch (const std::exception& e) {
        errors[i] = e.what();
        if (!counted) queued.count_down();
      }
    });
  }
  queued.wait();
  release.count_down();  // every GPU's loop is queued: open all gates at once
  for (std::thread& t : threads) t.join();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (!errors[i].empty()) throw std::runtime_error("GPU " + std::to_string(devices[i].index) + ": " + errors[i]);
    result.per_gpu.push_back({devices[i].index, gbps[i]});
    result.total_gbps += gbps[i];
  }
  return result;
}

}  // namespace hazardlab::perf
