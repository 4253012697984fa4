#pragma once
// Transfer performance, measured on the GPU with CUDA events: copy bandwidth by memory kind,
// direction and size, copy/compute overlap, and the seed tutorial's findings. Measurements are
// reported; the validation checks (checks.hpp) turn a few of them into pass/fail.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/host_memory.hpp"
#include "hazardlab/measurements.hpp"  // the figures, as recorded
#include "perf/statistics.hpp"

namespace hazardlab::perf {

// How much to measure. The quick profile runs in the default suite; the full one on request.
// Each figure is measured the way NVIDIA's nvbandwidth measures its own: the stream is held
// closed while warm-up copies and then a loop of copies are queued, and the loop is timed as a
// whole with events; `samples` such loops give the median and the spread.
struct Profile {
  std::string name;                            // as the run records it (HAZARDLAB_PERF_PROFILE's value)
  // The health run's: no nvbandwidth and no figures of all GPUs at once, which a health check has no time for.
  bool link_check_only = false;
  std::vector<std::size_t> sizes;              // bandwidth sizes, every host memory kind
  std::vector<std::size_t> pinned_sizes;       // page-locked memory only (large copies need large buffers)
  std::vector<std::size_t> checked_sizes;      // pinned sizes the link check applies to, confirmed before failing
  int samples = 5;                             // timed loops per figure
  std::size_t bytes_per_sample = 0;            // a loop queues copies until about this many bytes...
  int min_copies = 2, max_copies = 16;         // ...within these bounds
  std::size_t unchecked_bytes_per_sample = 0;  // the same for figures no check reads (0: bytes_per_sample)
  int warmup_copies = 1;                       // queued ahead of the timed loop, in every sample
  std::size_t bidirectional_bytes = 0;         // the measured copy of the bidirectional figures
  std::size_t overlap_bytes = 0;               // copy size in the overlap test
  int repeats = 3;                             // of the overlap and findings timings (median of these)
  std::size_t pinned_budget = 0;               // page-locked bytes the measurements may hold at once
  int copies_for(std::size_t bytes) const;
  int unchecked_copies_for(std::size_t bytes) const;
};

// HAZARDLAB_PERF_PROFILE (quick|full) and HAZARDLAB_PINNED_BUDGET_MB; throws SettingsError.
Profile profile_from_environment();
Profile quick_profile();
Profile full_profile();
Profile health_profile();  // HAZARDLAB_PROFILE=health: the link check's 256 MiB pinned figures only

BandwidthPoint point_of(Direction d, HostMemoryKind host, std::size_t bytes, int copies, const ConfirmedFigure& f);

AllGpusResult measure_all_gpus_at_once(const Profile& p, const std::vector<DeviceFingerprint>& devices, Direction d);

// Device-to-device copies between every ordered pair of `devices`, one pair at a time (peer_matrix.cpp).
std::vector<PeerBandwidth> measure_peer_matrix(const Profile& p, const std::vector<DeviceFingerprint>& devices);

// Binds the calling thread to the GPU's CPUs before host memory is allocated (as nvbandwidth does).
HostPlacement bind_to_device(const DeviceFingerprint& device);
// The kernel's NUMA node for the GPU's PCI function ("0000:17:00.0"), -1 when it has none.
int numa_node_of(std::string pci_bus_id);

// The share of the shorter operation hidden behind the longer one:
// (kernel_alone + copy_alone - both) / min(kernel_alone, copy_alone), clamped to [0, 1].
double overlap_fraction(double kernel_ms, double copy_ms, double both_ms) noexcept;

// Host buffers allocated and written before the host is held alone (host_lock.hpp): on an H200 that
// took about half of the bandwidth test (some 2 GiB of page-locked memory), and the other GPUs' cases
// need not wait for it. A measurement takes the buffers it needs; one not prepared is made on the spot.
class PreparedBuffers {
 public:
  void prepare(HostMemoryKind kind, std::size_t bytes);  // allocates and writes one now
  HostBuffer take(HostMemoryKind kind, std::size_t bytes);
  std::size_t bytes_ready() const noexcept;

 private:
  std::multimap<std::pair<HostMemoryKind, std::size_t>, HostBuffer> ready_;
};

// What measure_bandwidth (of these kinds) and measure_bidirectional will take.
PreparedBuffers prepare_bandwidth_buffers(const Profile& p, const std::vector<HostMemoryKind>& kinds);

// A checked pinned figure under its floor (`floor_gbps(direction, bytes)`, 0: none) is measured again,
// on a fresh buffer, up to kConfirmAttempts attempts in all.
using FloorOf = std::function<double(Direction, std::size_t)>;
std::vector<BandwidthPoint> measure_bandwidth(const Profile& p, const std::vector<HostMemoryKind>& kinds,
                                              const FloorOf& floor_gbps, PreparedBuffers& buffers);
// Host-to-device measured against device-to-host on a second stream, then the other way round, on
// the same buffers.
std::vector<BidirectionalResult> measure_bidirectional(const Profile& p, PreparedBuffers& buffers);
std::vector<OverlapResult> measure_overlap(const Profile& p);
std::vector<Comparison> measure_tutorial_findings(const Profile& p);

double median(std::vector<double> values);

}  // namespace hazardlab::perf
