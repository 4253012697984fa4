#pragma once
// Transfer performance, measured on the GPU with CUDA events: copy bandwidth by memory kind,
// direction and size, copy/compute overlap, and the seed tutorial's findings. Measurements are
// reported; the validation checks (checks.hpp) turn a few of them into pass/fail.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/host_memory.hpp"
#include "perf/statistics.hpp"

namespace hazardlab::perf {

enum class Direction { HostToDevice, DeviceToHost };
std::string_view to_string(Direction d) noexcept;

// How much to measure. The quick profile runs in the default suite; the full one on request.
// Each figure is measured the way NVIDIA's nvbandwidth measures its own: the stream is held
// closed while warm-up copies and then a loop of copies are queued, and the loop is timed as a
// whole with events; `samples` such loops give the median and the spread.
struct Profile {
  std::string name;
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

struct BandwidthPoint {
  Direction direction;
  HostMemoryKind host;
  std::size_t bytes = 0;
  int copies_per_repeat = 0;
  double median_gbps = 0, min_gbps = 0, max_gbps = 0;  // of the figure's attempt
  Spread spread;                                       // of the figure's attempt
  std::vector<Attempt> attempts;  // more than one when an attempt fell under the floor and was measured again
  double floor_gbps = 0;          // what an attempt had to reach (confirmation_floor, reference.hpp); 0: none
  bool confirmed_miss = false;    // every attempt fell under the floor
};
BandwidthPoint point_of(Direction d, HostMemoryKind host, std::size_t bytes, int copies, const ConfirmedFigure& f);

// nvbandwidth's bidirectional figure: the measured direction's loop on one stream while the
// opposite direction runs on another, with twice the bytes per copy so that it overlaps the
// whole loop; only the measured direction is reported.
struct BidirectionalResult {
  Direction measured = Direction::HostToDevice;
  std::size_t bytes = 0;
  Spread spread;
};

// Pinned copies on every GPU of the host released together (one direction at a time).
struct AllGpusResult {
  Direction direction = Direction::HostToDevice;
  std::size_t bytes = 0;
  std::vector<std::pair<int, double>> per_gpu;  // device index, GB/s
  double total_gbps = 0;
};
AllGpusResult measure_all_gpus_at_once(const Profile& p, const std::vector<DeviceFingerprint>& devices, Direction d);
void to_json(nlohmann::json& j, const AllGpusResult& r);

// Where the measuring thread and its host buffers live.
struct HostPlacement {
  int numa_node = -1;  // the GPU's NUMA node as the kernel reports it; -1: none or unknown
  std::string cpus;    // the thread's CPU affinity while measuring, as a list ("0-15")
  bool bound = false;  // bound to the GPU's CPUs through NVML
  std::string not_bound_reason;
};
// Binds the calling thread to the GPU's CPUs before host memory is allocated (as nvbandwidth does).
HostPlacement bind_to_device(const DeviceFingerprint& device);

// The share of the shorter operation hidden behind the longer one:
// (kernel_alone + copy_alone - both) / min(kernel_alone, copy_alone), clamped to [0, 1].
double overlap_fraction(double kernel_ms, double copy_ms, double both_ms) noexcept;

struct OverlapResult {
  HostMemoryKind host;
  bool separate_streams;
  std::size_t bytes = 0;
  double kernel_ms = 0, copy_ms = 0, both_ms = 0, fraction = 0;
};

// A comparison the tutorial makes, measured here: option A against option B, wall time each.
struct Comparison {
  std::string id;
  std::string question;
  std::string a, b;
  double a_ms = 0, b_ms = 0;
  double ratio() const noexcept { return a_ms > 0 ? b_ms / a_ms : 0; }  // > 1: A is faster
};

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

void to_json(nlohmann::json& j, const BandwidthPoint& b);
void to_json(nlohmann::json& j, const BidirectionalResult& b);
void to_json(nlohmann::json& j, const HostPlacement& h);
void to_json(nlohmann::json& j, const OverlapResult& o);
void to_json(nlohmann::json& j, const Comparison& c);

double median(std::vector<double> values);

}  // namespace hazardlab::perf
