// Every ordered pair of the host's GPUs, one pair at a time: what each link delivers to a
// cudaMemcpyPeerAsync, beside nvbandwidth's device_to_device_memcpy_write_ce matrix. The hazards
// copy on a ring (scenario/peer_pair.hpp); this and the soak cover every pair's data path.
#include <algorithm>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/stream.hpp"
#include "perf/perf.hpp"
#include "perf/statistics.hpp"
#include "scenario/peer_pair.hpp"

namespace hazardlab::perf {
namespace {

constexpr int kRepeats = 3;  // the median of three timed loops

PeerBandwidth measure_pair(const Profile& p, int source, int destination) {
  const std::size_t bytes = p.bidirectional_bytes;
  const int copies = p.copies_for(bytes);
  const PeerAccessScope access({source, destination}, PeerAccess::Enabled);
  OnDevice<DeviceBuffer> to(destination, bytes);
  OnDevice<DeviceBuffer> from(source, bytes);
  DeviceScope on(source);
  Stream stream(StreamKind::NonBlocking);
  Event start(cudaEventDefault), stop(cudaEventDefault);
  const auto copy = [&] {
    HL_CUDA(cudaMemcpyPeerAsync(to->data(), destination, from->data(), source, bytes, stream.get()));
  };
  for (int w = 0; w < p.warmup_copies; ++w) copy();
  std::vector<double> gbps;
  for (int r = 0; r < kRepeats; ++r) {
    start.record(stream.get());
    for (int c = 0; c < copies; ++c) copy();
    stop.record(stream.get());
    stop.synchronize();
    float ms = 0;
    HL_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    gbps.push_back(gbps_of(bytes, copies, ms));
  }
  std::sort(gbps.begin(), gbps.end());
  return {source, destination, access.note.empty(), bytes, gbps[gbps.size() / 2]};
}

}  // namespace

std::vector<PeerBandwidth> measure_peer_matrix(const Profile& p, const std::vector<DeviceFingerprint>& devices) {
  std::vector<PeerBandwidth> matrix;
  for (const DeviceFingerprint& source : devices)
    for (const DeviceFingerprint& destination : devices)
      if (source.index != destination.index) matrix.push_back(measure_pair(p, source.index, destination.index));
  return matrix;
}

}  // namespace hazardlab::perf
