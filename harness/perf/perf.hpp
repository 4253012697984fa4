#pragma once
// Transfer performance, measured on the GPU with CUDA events: copy bandwidth by memory kind,
// direction and size, copy/compute overlap, and the seed tutorial's findings. Measurements are
// reported; the validation checks (checks.hpp) turn a few of them into pass/fail.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/host_memory.hpp"

namespace hazardlab::perf {

enum class Direction { HostToDevice, DeviceToHost };
std::string_view to_string(Direction d) noexcept;

// How much to measure. The quick profile runs in the default suite; the full one on request.
struct Profile {
  std::string name;
  std::vector<std::size_t> sizes;    // bandwidth sizes
  int repeats = 3;                   // timed repeats per point; the median is reported
  std::size_t bytes_per_repeat = 0;  // each repeat queues copies until about this many bytes
  int max_copies_per_repeat = 32;
  std::size_t concurrent_bytes = 0;  // size of each copy in the concurrent H2D + D2H test
  std::size_t overlap_bytes = 0;     // copy size in the overlap test
  std::size_t pinned_budget = 0;     // page-locked bytes the measurements may hold at once
};

// HAZARDLAB_PERF_PROFILE (quick|full) and HAZARDLAB_PINNED_BUDGET_MB; throws SettingsError.
Profile profile_from_environment();
Profile quick_profile();
Profile full_profile();

struct BandwidthPoint {
  Direction direction;
  HostMemoryKind host;
  std::size_t bytes = 0;
  int copies_per_repeat = 0;
  double median_gbps = 0, min_gbps = 0, max_gbps = 0;
};

struct ConcurrentResult {
  std::size_t bytes = 0;
  double h2d_gbps = 0, d2h_gbps = 0;  // each direction while both run
  double h2d_alone_gbps = 0, d2h_alone_gbps = 0;
};

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

std::vector<BandwidthPoint> measure_bandwidth(const Profile& p, const std::vector<HostMemoryKind>& kinds);
ConcurrentResult measure_concurrent(const Profile& p);
std::vector<OverlapResult> measure_overlap(const Profile& p);
std::vector<Comparison> measure_tutorial_findings(const Profile& p);

void to_json(nlohmann::json& j, const BandwidthPoint& b);
void to_json(nlohmann::json& j, const ConcurrentResult& c);
void to_json(nlohmann::json& j, const OverlapResult& o);
void to_json(nlohmann::json& j, const Comparison& c);

double median(std::vector<double> values);

}  // namespace hazardlab::perf
