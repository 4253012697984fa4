#include "conformance_gpu/runner/upload_probe.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "cuda/check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/host_memory.hpp"
#include "cuda/stream.hpp"
#include "hold/gate.hpp"

namespace hazardlab::conformance {
namespace {

constexpr unsigned char kEarlier = 0x11;  // the pinned source before the gated memset
constexpr unsigned char kWritten = 0x22;  // what the gated memset writes into it
// A copy that does not wait has finished long before this; one that waits cannot finish before the gate opens.
constexpr auto kCopyWait = std::chrono::milliseconds(20);

}  // namespace

struct UploadProbe::Rig {
  Rig(std::size_t bytes, std::chrono::milliseconds timeout)
      : source(HostMemoryKind::Pinned, bytes),
        readback(HostMemoryKind::Pinned, bytes),
        device(bytes),
        blocking(StreamKind::Blocking),
        gate_timeout(timeout) {}
  HostBuffer source, readback;
  DeviceBuffer device;
  Stream blocking;
  Event copied;
  std::chrono::milliseconds gate_timeout;
};

UploadProbe::UploadProbe(std::size_t largest_bytes, std::chrono::milliseconds gate_timeout)
    : rig_(std::make_unique<Rig>(largest_bytes, gate_timeout)) {}

UploadProbe::~UploadProbe() = default;

UploadSeen UploadProbe::operator()(std::size_t bytes) {
  Rig& r = *rig_;
  if (bytes == 0 || bytes > r.source.size()) throw std::invalid_argument("upload probe: size out of range");
  HL_CUDA(cudaDeviceSynchronize());
  std::memset(r.source.data(), kEarlier, bytes);
  HL_CUDA(cudaMemset(r.device.data(), 0, bytes));
  HL_CUDA(cudaDeviceSynchronize());

  std::unique_ptr<Gate> gate = close_gate(GateKind::SpinKernel, r.blocking.get(), r.gate_timeout);
  HL_CUDA(cudaMemsetAsync(r.source.data(), kWritten, bytes, r.blocking.get()));
  {
    // A copy that waits in the call instead of on the stream would wait for the gate: the watchdog opens it.
    Watchdog watchdog(*gate, std::chrono::milliseconds(100));
    HL_CUDA(cudaMemcpyAsync(r.device.data(), r.source.data(), bytes, cudaMemcpyHostToDevice, cudaStreamLegacy));
    r.copied.record(cudaStreamLegacy);
    if (watchdog.disarm()) return UploadSeen::Neither;
  }
  const auto deadline = std::chrono::steady_clock::now() + kCopyWait;
  bool finished_while_gated = false;
  while (!(finished_while_gated = r.copied.query()) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  gate->open();
  HL_CUDA(cudaDeviceSynchronize());
  if (gate->timed_out()) throw std::runtime_error("upload probe: the gate timed out");
  HL_CUDA(cudaMemcpy(r.readback.data(), r.device.data(), bytes, cudaMemcpyDeviceToHost));
  const auto all = [&](unsigned char value) {
    return std::all_of(r.readback.data(), r.readback.data() + bytes, [=](std::byte b) { return b == std::byte{value}; });
  };
  if (all(kEarlier)) return UploadSeen::SkippedImplicitSync;
  // The memset's bytes from a copy that finished while the memset was still held: impossible, so no answer.
  if (all(kWritten) && !finished_while_gated) return UploadSeen::Obeyed;
  return UploadSeen::Neither;
}

SmallUploadThreshold measure_small_upload_threshold(std::chrono::milliseconds gate_timeout) {
  const ThresholdSearch search;
  UploadProbe probe(search.largest_bytes, gate_timeout);
  return find_small_upload_threshold([&](std::size_t bytes) { return probe(bytes); }, search);
}

}  // namespace hazardlab::conformance
