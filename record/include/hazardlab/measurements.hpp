#pragma once
// What a performance measurement group found, as recorded: every figure named with its unit in its
// name (_gbps: 1e9 bytes per second, _ms, bytes), with its spread and every attempt when a miss was
// measured again. harness/perf and harness/soak measure and fill these; the reports read them
// through these types, never by key. Plain data, no CUDA. Each JSON key is named once, in
// record/src/measurement_keys.hpp; reports/schema/gpu-report.schema.json describes the same objects, closed.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hazardlab/host_memory_kind.hpp"

namespace hazardlab::perf {

enum class Direction { HostToDevice, DeviceToHost };
std::string_view to_string(Direction d) noexcept;  // "h2d", "d2h"
std::optional<Direction> direction_from_string(std::string_view name) noexcept;

// Median and spread of samples. Quartiles interpolate linearly between order statistics (the
// common "type 7" definition); cv is the sample standard deviation over the mean.
struct Spread {
  std::size_t n = 0;
  double median = 0, min = 0, max = 0;
  double q1 = 0, q3 = 0;
  double cv = 0;  // coefficient of variation, 0.01 = 1%
  double iqr() const noexcept { return q3 - q1; }
};

// One attempt at a figure: its samples (GB/s) and their spread.
struct Attempt {
  std::vector<double> samples;
  Spread spread;
};

// One bandwidth figure: the median of event-timed loops of copies, with the spread of its attempt.
struct BandwidthPoint {
  Direction direction = Direction::HostToDevice;
  HostMemoryKind host = HostMemoryKind::Pinned;
  std::size_t bytes = 0;
  int copies_per_repeat = 0;
  double median_gbps = 0, min_gbps = 0, max_gbps = 0;  // of the figure's attempt
  double cv = 0, iqr_gbps = 0;                          // of the figure's attempt
  std::size_t samples = 0;                              // timed loops in the figure's attempt
  std::vector<Attempt> attempts;  // kept when an attempt fell under the floor and was measured again
  double floor_gbps = 0;          // what an attempt had to reach (confirmation_floor, reference.hpp); 0: none
  bool confirmed_miss = false;    // every attempt fell under the floor
  std::size_t attempt_count() const noexcept { return attempts.empty() ? 1 : attempts.size(); }
};

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

// A device-to-device copy from one GPU to another of the host (cudaMemcpyPeerAsync), timed alone.
// Without peer access the driver stages the copy through the host: that row says so and is no
// measurement of a direct link.
struct PeerBandwidth {
  int source = 0, destination = 0;  // device indices
  bool peer_access = false;         // cudaDeviceCanAccessPeer both ways, and enabled for the copy
  std::size_t bytes = 0;
  double gbps = 0;
};

// One of our figures beside nvbandwidth's median for it, with every run of nvbandwidth and every
// attempt of ours when ours was measured again.
struct ReferenceFigure {
  std::string figure;  // "h2d", "d2h", "h2d-bidirectional", "d2h-bidirectional"
  std::size_t bytes = 0;
  double hazardlab_gbps = 0, nvbandwidth_gbps = 0;
  std::vector<double> nvbandwidth_runs_gbps;
  std::vector<double> hazardlab_attempts_gbps;  // empty: measured once
  double ratio() const noexcept;                // ours / nvbandwidth's, 0 without a reference
};

struct ReferenceComparison {
  std::string tool;  // the nvbandwidth binary
  int runs_per_size = 0;
  double remeasured_below_fraction = 0;  // a checked figure under this share of the reference is measured again
  std::vector<ReferenceFigure> figures;
  std::vector<std::string> errors;  // "command: error" of each nvbandwidth run that failed
};

// Where the measuring thread and its host buffers lived.
struct HostPlacement {
  int numa_node = -1;  // the GPU's NUMA node as the kernel reports it; -1: none or unknown
  std::string cpus;    // the thread's CPU affinity while measuring, as a list ("0-15")
  bool bound = false;  // bound to the GPU's CPUs through NVML
  std::string not_bound_reason;
};

// Whether the figures were taken alone on the host (harness/perf/host_lock.hpp).
struct Isolation {
  bool alone_on_host = false;
  long waited_ms = 0;
  std::string lock;  // the lock file's path
};

struct OverlapResult {
  HostMemoryKind host = HostMemoryKind::Pinned;
  bool separate_streams = false;
  std::size_t bytes = 0;
  double kernel_ms = 0, copy_ms = 0, both_ms = 0, fraction = 0;  // fraction of the shorter one hidden
};

// A comparison the tutorial makes, measured here: option A against option B, wall time each.
struct Comparison {
  std::string id;
  std::string question;
  std::string a, b;
  double a_ms = 0, b_ms = 0;
  double ratio() const noexcept { return a_ms > 0 ? b_ms / a_ms : 0; }  // > 1: A is faster
};

// The bandwidth group's figures and what the link check read (its sizes and its threshold).
struct BandwidthGroup {
  std::vector<BandwidthPoint> points;
  std::vector<BidirectionalResult> bidirectional;
  double link_raw_gbps_per_direction = 0;
  std::optional<std::vector<std::size_t>> checked_sizes;  // absent in records from before it was kept
  std::optional<double> link_threshold_gbps;              // likewise
  std::optional<ReferenceComparison> reference;           // nvbandwidth beside ours, when it ran
  std::vector<AllGpusResult> all_gpus_at_once;            // on the lowest-numbered of several GPUs
  std::vector<PeerBandwidth> peer_matrix;                 // likewise: every ordered pair of GPUs
};

// The overlap group: a miss is measured again, every attempt kept; the last attempt decided.
struct OverlapGroup {
  std::vector<std::vector<OverlapResult>> attempts;
  const std::vector<OverlapResult>& deciding() const { return attempts.back(); }
};

}  // namespace hazardlab::perf

namespace hazardlab::soak {

struct CopyTally {
  std::string copy;  // "pinned h2d", "registered d2h", "peer gpu0->gpu1"
  std::uint64_t copies = 0;
  std::uint64_t bytes_verified = 0;  // bytes that arrived whole
  std::uint64_t corrupted = 0;       // copies with at least one wrong byte
};

struct SoakSample {
  double t_s = 0;  // since the soak began: the middle of the bucket
  std::string copy;
  double gbps = 0;  // bytes over the copies' event-timed duration in the bucket
};

struct SoakResult {
  double seconds = 0;
  double overshoot_s = 0;  // past the duration when the last copy ended
  int rounds = 0;
  int churns = 0;  // times the pinned and registered buffers were freed and made again
  std::size_t bytes = 0;
  std::vector<CopyTally> tallies;
  std::vector<std::string> errors;  // each corrupted copy: first bad offset, bytes, what it looks like
  std::vector<SoakSample> samples;
  bool fault_injected = false;
};

}  // namespace hazardlab::soak

namespace hazardlab {

// One measurement group's record: the groups its part measured, and where and how alone it ran.
struct Measurements {
  std::optional<perf::BandwidthGroup> bandwidth;
  std::optional<perf::OverlapGroup> overlap;
  std::optional<std::vector<perf::Comparison>> findings;
  std::optional<soak::SoakResult> soak;
  std::optional<perf::HostPlacement> host_placement;
  std::optional<perf::Isolation> isolation;
};

// Written as one flat object ({"bandwidth": [...], "bidirectional": [...], "overlap": [...], ...}),
// as records have always been; reading ignores keys it does not know and throws
// nlohmann::json::exception for a known one of the wrong type.
void to_json(nlohmann::json& j, const Measurements& m);
void from_json(const nlohmann::json& j, Measurements& m);

namespace perf {
void to_json(nlohmann::json& j, const Spread& s);
void from_json(const nlohmann::json& j, Spread& s);
}  // namespace perf

}  // namespace hazardlab
