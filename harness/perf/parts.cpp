#include "perf/parts.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "perf/checks.hpp"
#include "perf/reference.hpp"

namespace hazardlab::perf {
namespace {

void print_bandwidth(const std::vector<BandwidthPoint>& points) {
  std::printf("   %-4s %-15s %12s %10s %7s %7s %6s %s\n", "dir", "host memory", "bytes", "median", "min", "max", "CV",
              "attempts");
  for (const auto& b : points) {
    std::printf("   %-4s %-15s %12zu %7.2f GB/s %7.2f %7.2f %5.1f%% %zu\n", std::string(to_string(b.direction)).c_str(),
                std::string(to_string(b.host)).c_str(), b.bytes, b.median_gbps, b.min_gbps, b.max_gbps, b.cv * 100,
                b.attempt_count());
  }
}

std::string gbps_list(const std::vector<double>& values) {
  std::string text;
  for (double v : values) {
    char one[16];
    std::snprintf(one, sizeof one, "%.2f", v);
    text += (text.empty() ? "" : ", ") + std::string(one);
  }
  return text;
}

// Our figures beside nvbandwidth's, with their ratio; every attempt of a figure that was measured again.
ReferenceComparison compare_with_reference(const std::filesystem::path& tool,
                                           const std::map<std::size_t, ReferenceFigures>& references,
                                           const std::vector<BandwidthPoint>& points,
                                           const std::vector<BidirectionalResult>& bidirectional) {
  ReferenceComparison out{tool.string(), kReferenceRuns, kReferenceAgreement, {}, {}};
  for (const auto& [bytes, reference] : references) {
    for (const std::string& e : reference.errors) {
      out.errors.push_back(e);
      std::printf("   nvbandwidth (%zu B): %s\n", bytes, e.c_str());
    }
    const auto beside = [&](const std::string& name, double ours, const std::vector<Attempt>& attempts) {
      const auto it = reference.median.find(name);
      if (it == reference.median.end()) return;
      ReferenceFigure f{name, bytes, ours, it->second, reference.values.at(name), {}};
      std::string again;
      if (attempts.size() > 1) {
        for (const Attempt& a : attempts) f.hazardlab_attempts_gbps.push_back(a.spread.median);
        again = "; our attempts " + gbps_list(f.hazardlab_attempts_gbps);
      }
      std::printf("   beside nvbandwidth: %-18s %11zu B  %6.2f vs %6.2f GB/s (median of %s)  ratio %.3f%s\n",
                  name.c_str(), bytes, ours, it->second, gbps_list(f.nvbandwidth_runs_gbps).c_str(), f.ratio(),
                  again.c_str());
      out.figures.push_back(std::move(f));
    };
    for (const BandwidthPoint& b : points) {
      if (b.host == HostMemoryKind::Pinned && b.bytes == bytes)
        beside(std::string(to_string(b.direction)), b.median_gbps, b.attempts);
    }
    for (const BidirectionalResult& r : bidirectional) {
      if (r.bytes == bytes) beside(std::string(to_string(r.measured)) + "-bidirectional", r.spread.median, {});
    }
  }
  return out;
}

}  // namespace

std::vector<HostMemoryKind> bandwidth_kinds(const DeviceFingerprint& device) {
  std::vector<HostMemoryKind> kinds{HostMemoryKind::Pageable, HostMemoryKind::Pinned, HostMemoryKind::WriteCombined};
  if (device.host_register_supported) kinds.insert(kinds.begin() + 2, HostMemoryKind::Registered);
  return kinds;
}

Measurements measure_bandwidth_part(const Profile& profile, const DeviceFingerprint& device,
                                    const Thresholds& thresholds, std::vector<Check>& checks,
                                    PreparedBuffers& buffers) {
  BandwidthGroup out;
  out.link_raw_gbps_per_direction = device.pcie.max_raw_gbps_per_direction();
  const double link = out.link_raw_gbps_per_direction;
  // Where the time goes is printed too: these measurements hold the host alone.
  // nvbandwidth first, when it is there: a checked figure under kReferenceAgreement of its median is
  // measured again, as a threshold miss is.
  // Not in the health profile: nvbandwidth adds about 55 s per GPU, and a health check has 60 s in all.
  const std::optional<std::filesystem::path> tool =
      profile.link_check_only ? std::nullopt : reference_tool_from_environment();
  std::map<std::size_t, ReferenceFigures> references;
  if (tool) {
    const Stopwatch watch;
    references = run_references(*tool, profile.checked_sizes, device.uuid);
    std::printf("   nvbandwidth ran %d times per checked size in %.2f s\n", kReferenceRuns, watch.seconds());
  }
  const double threshold = link > 0 ? link * thresholds.min_link_fraction : 0;
  const FloorOf floor_of = [&](Direction d, std::size_t bytes) {
    double reference = 0;
    if (const auto it = references.find(bytes); it != references.end())
      if (const auto m = it->second.median.find(std::string(to_string(d))); m != it->second.median.end())
        reference = m->second;
    return confirmation_floor(threshold, reference);
  };
  for (HostMemoryKind kind : bandwidth_kinds(device)) {
    const Stopwatch watch;
    const auto some = measure_bandwidth(profile, {kind}, floor_of, buffers);
    out.points.insert(out.points.end(), some.begin(), some.end());
    std::printf("   %s memory measured in %.2f s\n", std::string(to_string(kind)).c_str(), watch.seconds());
  }
  print_bandwidth(out.points);
  const Stopwatch watch;
  out.bidirectional = measure_bidirectional(profile, buffers);
  std::printf("   bidirectional figures measured in %.2f s\n", watch.seconds());
  for (const BidirectionalResult& b : out.bidirectional) {
    std::printf("   bidirectional (nvbandwidth's method), %s measured, %zu B: %.2f GB/s (CV %.1f%%)\n",
                std::string(to_string(b.measured)).c_str(), b.bytes, b.spread.median, b.spread.cv * 100);
  }
  // What the link check read, for the metrics (prometheus.hpp): its sizes and its threshold.
  out.checked_sizes = profile.checked_sizes;
  out.link_threshold_gbps = threshold;
  checks = check_link_bandwidth(out.points, profile.checked_sizes, device, thresholds);
  if (tool) out.reference = compare_with_reference(*tool, references, out.points, out.bidirectional);
  Measurements m;
  m.bandwidth = std::move(out);
  return m;
}

std::vector<DeviceFingerprint> several_gpus_measured_by(const Profile& profile, const DeviceFingerprint& device) {
  if (profile.name == "health") return {};
  DeviceInventory inventory = discover_devices();
  if (inventory.devices.size() < 2 || device.index != inventory.devices.front().index) return {};
  return std::move(inventory.devices);
}

void measure_several_gpus(const Profile& profile, const std::vector<DeviceFingerprint>& devices, BandwidthGroup& out) {
  for (Direction d : {Direction::HostToDevice, Direction::DeviceToHost}) {
    const AllGpusResult all = measure_all_gpus_at_once(profile, devices, d);
    std::printf("   all %zu GPUs at once, %s, %zu B each: %.2f GB/s in total\n", all.per_gpu.size(),
                std::string(to_string(d)).c_str(), all.bytes, all.total_gbps);
    out.all_gpus_at_once.push_back(all);
  }
  const Stopwatch peers;
  out.peer_matrix = measure_peer_matrix(profile, devices);
  for (const PeerBandwidth& pb : out.peer_matrix) {
    std::printf("   peer gpu%d -> gpu%d, %zu B: %.2f GB/s%s\n", pb.source, pb.destination, pb.bytes, pb.gbps,
                pb.peer_access ? "" : " (no peer access: staged through the host)");
  }
  std::printf("   peer copies of %zu pairs measured in %.2f s\n", out.peer_matrix.size(), peers.seconds());
}

Measurements measure_overlap_part(const Profile& profile, const DeviceFingerprint& device,
                                  const Thresholds& thresholds, std::vector<Check>& checks) {
  OverlapGroup group;
  std::vector<std::string> tried;
  for (int attempt = 1; attempt <= kConfirmAttempts; ++attempt) {
    group.attempts.push_back(measure_overlap(profile));
    for (const auto& o : group.attempts.back()) {
      std::printf("   %-9s %-8s streams: kernel %.2f ms, copy %.2f ms, together %.2f ms: %.0f%% hidden\n",
                  std::string(to_string(o.host)).c_str(), o.separate_streams ? "separate" : "same", o.kernel_ms,
                  o.copy_ms, o.both_ms, o.fraction * 100);
    }
    checks = check_overlap(group.attempts.back(), device, thresholds);
    tried.push_back("attempt " + std::to_string(attempt) + ": " + checks[0].measured);
    if (!checks[0].applicable || checks[0].passed) break;
  }
  if (tried.size() > 1 || !checks[0].passed) checks[0].attempts = tried;
  Measurements m;
  m.overlap = std::move(group);
  return m;
}

Measurements measure_findings_part(const Profile& profile) {
  Measurements m;
  m.findings = measure_tutorial_findings(profile);
  for (const auto& c : *m.findings) {
    std::printf("   %s\n     A: %s: %.2f ms\n     B: %s: %.2f ms (B/A = %.2f)\n", c.question.c_str(), c.a.c_str(),
                c.a_ms, c.b.c_str(), c.b_ms, c.ratio());
  }
  return m;
}

}  // namespace hazardlab::perf
