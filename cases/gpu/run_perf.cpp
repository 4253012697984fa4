// Runs one group of transfer performance measurements on one GPU and records it for the report.
//
//   hazardlab-perf --device 0 --part bandwidth    (host<->device bandwidth by memory kind and size)
//   hazardlab-perf --device 0 --part overlap      (copy/compute overlap)
//   hazardlab-perf --device 0 --part findings     (the seed tutorial's comparisons)
//
// HAZARDLAB_PERF_PROFILE=quick|full picks how much to measure. Exit status: 0 measured and every
// applicable validation check passed, 1 a check failed or a CUDA call failed, 2 bad arguments or
// settings, 77 skipped (no GPU).
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/kernel_loading.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/results_layout.hpp"
#include "perf/checks.hpp"
#include "perf/host_lock.hpp"
#include "perf/reference.hpp"
#include "settings/settings.hpp"
#include "soak/soak.hpp"

using namespace hazardlab;
using namespace hazardlab::perf;

namespace {

constexpr int kSkipExitCode = 77;

void print_bandwidth(const std::vector<BandwidthPoint>& points) {
  std::printf("   %-4s %-15s %12s %10s %7s %7s %6s %s\n", "dir", "host memory", "bytes", "median", "min", "max", "CV",
              "attempts");
  for (const auto& b : points) {
    std::printf("   %-4s %-15s %12zu %7.2f GB/s %7.2f %7.2f %5.1f%% %zu\n", std::string(to_string(b.direction)).c_str(),
                std::string(to_string(b.host)).c_str(), b.bytes, b.median_gbps, b.min_gbps, b.max_gbps,
                b.spread.cv * 100, b.attempts.size());
  }
}

// nvbandwidth on the same GPU at each checked size, kReferenceRuns runs each (every size once, then again),
// combined into a median per figure (reference.hpp). Run before our figures, which are confirmed against it.
std::map<std::size_t, ReferenceFigures> run_references(const std::filesystem::path& tool, const Profile& profile,
                                                       const DeviceFingerprint& device) {
  std::map<std::size_t, std::vector<ReferenceRun>> runs;
  for (int r = 0; r < kReferenceRuns; ++r)
    for (std::size_t bytes : profile.checked_sizes) runs[bytes].push_back(run_reference(tool, device.uuid, bytes));
  std::map<std::size_t, ReferenceFigures> figures;
  for (const auto& [bytes, of_size] : runs) figures[bytes] = combine_runs(of_size);
  return figures;
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
nlohmann::json compare_with_reference(const std::filesystem::path& tool,
                                      const std::map<std::size_t, ReferenceFigures>& references,
                                      const std::vector<BandwidthPoint>& points,
                                      const std::vector<BidirectionalResult>& bidirectional) {
  nlohmann::json out = {{"tool", tool.string()},
                        {"runs_per_size", kReferenceRuns},
                        {"remeasured_below_fraction", kReferenceAgreement},
                        {"figures", nlohmann::json::array()}};
  for (const auto& [bytes, reference] : references) {
    for (const std::string& e : reference.errors) {
      out["errors"].push_back(e);
      std::printf("   nvbandwidth (%zu B): %s\n", bytes, e.c_str());
    }
    const auto beside = [&](const std::string& name, double ours, const std::vector<Attempt>& attempts) {
      const auto it = reference.median.find(name);
      if (it == reference.median.end()) return;
      nlohmann::json f = side_by_side(ours, it->second);
      f["figure"] = name;
      f["bytes"] = bytes;
      f["nvbandwidth_runs_gbps"] = reference.values.at(name);
      std::string again;
      if (attempts.size() > 1) {
        std::vector<double> medians;
        for (const Attempt& a : attempts) medians.push_back(a.spread.median);
        f["hazardlab_attempts_gbps"] = medians;
        again = "; our attempts " + gbps_list(medians);
      }
      std::printf("   beside nvbandwidth: %-18s %11zu B  %6.2f vs %6.2f GB/s (median of %s)  ratio %.3f%s\n",
                  name.c_str(), bytes, ours, it->second, gbps_list(reference.values.at(name)).c_str(),
                  f["ratio"].get<double>(), again.c_str());
      out["figures"].push_back(f);
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

struct Stopwatch {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
};

std::vector<HostMemoryKind> bandwidth_kinds(const DeviceFingerprint& device) {
  std::vector<HostMemoryKind> kinds{HostMemoryKind::Pageable, HostMemoryKind::Pinned, HostMemoryKind::WriteCombined};
  if (device.host_register_supported) kinds.insert(kinds.begin() + 2, HostMemoryKind::Registered);
  return kinds;
}

nlohmann::json run_bandwidth(const Profile& profile, const DeviceFingerprint& device, const Thresholds& thresholds,
                             std::vector<Check>& checks, PreparedBuffers& buffers) {
  nlohmann::json out;
  const double link = device.pcie.max_raw_gbps_per_direction();
  // Where the time goes is printed too: these measurements hold the host alone.
  // nvbandwidth first, when it is there: a checked figure under kReferenceAgreement of its median is
  // measured again, as a threshold miss is.
  // Not in the health profile: nvbandwidth adds about 55 s per GPU, and a health check has 60 s in all.
  const std::optional<std::filesystem::path> tool =
      profile.name == "health" ? std::nullopt : reference_tool_from_environment();
  std::map<std::size_t, ReferenceFigures> references;
  if (tool) {
    const Stopwatch watch;
    references = run_references(*tool, profile, device);
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
  std::vector<BandwidthPoint> points;
  for (HostMemoryKind kind : bandwidth_kinds(device)) {
    const Stopwatch watch;
    const auto some = measure_bandwidth(profile, {kind}, floor_of, buffers);
    points.insert(points.end(), some.begin(), some.end());
    std::printf("   %s memory measured in %.2f s\n", std::string(to_string(kind)).c_str(), watch.seconds());
  }
  print_bandwidth(points);
  const Stopwatch watch;
  const std::vector<BidirectionalResult> bidirectional = measure_bidirectional(profile, buffers);
  std::printf("   bidirectional figures measured in %.2f s\n", watch.seconds());
  for (const BidirectionalResult& b : bidirectional) {
    std::printf("   bidirectional (nvbandwidth's method), %s measured, %zu B: %.2f GB/s (CV %.1f%%)\n",
                std::string(to_string(b.measured)).c_str(), b.bytes, b.spread.median, b.spread.cv * 100);
  }
  out["bandwidth"] = points;
  out["bidirectional"] = bidirectional;
  out["link_raw_gbps_per_direction"] = link;
  // What the link check read, for the metrics (prometheus.hpp): its sizes and its threshold.
  out["checked_sizes"] = profile.checked_sizes;
  out["link_threshold_gbps"] = threshold;
  checks = check_link_bandwidth(points, profile.checked_sizes, device, thresholds);
  if (tool) out["reference"] = compare_with_reference(*tool, references, points, bidirectional);
  // On a host with several GPUs, the lowest-numbered one also measures all of them at once.
  const DeviceInventory inventory = discover_devices();
  if (inventory.devices.size() > 1 && device.index == inventory.devices.front().index && profile.name != "health") {
    for (Direction d : {Direction::HostToDevice, Direction::DeviceToHost}) {
      const AllGpusResult all = measure_all_gpus_at_once(profile, inventory.devices, d);
      std::printf("   all %zu GPUs at once, %s, %zu B each: %.2f GB/s in total\n", all.per_gpu.size(),
                  std::string(to_string(d)).c_str(), all.bytes, all.total_gbps);
      out["all_gpus_at_once"].push_back(all);
    }
  }
  return out;
}

// The soak (or the health profile's integrity part, one round on small buffers): verified copies of every
// host memory kind and direction, and to the next GPU where there is one (soak/soak.hpp).
nlohmann::json run_soak_part(const std::string& part, const Settings& settings, const DeviceFingerprint& device,
                             std::vector<Check>& checks) {
  soak::SoakOptions o;
  o.device = device.index;
  o.seed = settings.seed.value_or(static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()));
  o.inject_fault = settings.soak_inject_fault;
  o.one_round = part == "integrity";
  if (o.one_round) o.bytes = std::size_t{8} << 20;
  o.duration = settings.soak_duration;
  const DeviceInventory inventory = discover_devices();
  for (std::size_t i = 0; inventory.devices.size() > 1 && i < inventory.devices.size(); ++i) {
    if (inventory.devices[i].index == device.index)
      o.peer_device = inventory.devices[(i + 1) % inventory.devices.size()].index;
  }
  std::printf("   %s: %zu MiB per copy, %s, seed %llu%s\n", part.c_str(), o.bytes >> 20,
              o.one_round ? "one round" : (std::to_string(o.duration.count()) + " s").c_str(),
              static_cast<unsigned long long>(o.seed), o.peer_device >= 0 ? ", with peer copies" : "");
  const soak::SoakResult r = soak::run_soak(o);
  for (const soak::CopyTally& t : r.tallies) {
    std::printf("   %-22s %8llu copies, %10.2f GB verified, %llu corrupted\n", t.copy.c_str(),
                static_cast<unsigned long long>(t.copies), static_cast<double>(t.bytes_verified) / 1e9,
                static_cast<unsigned long long>(t.corrupted));
  }
  std::printf("   %d rounds, %d churns of the pinned and registered buffers, %.1f s (%.1f s past the duration)\n",
              r.rounds, r.churns, r.seconds, r.overshoot_s);
  checks = {soak::soak_check(r)};
  return {{"soak", r}};
}

nlohmann::json run_part(const std::string& part, const Profile& profile, const DeviceFingerprint& device,
                        const Thresholds& thresholds, std::vector<Check>& checks, PreparedBuffers& buffers) {
  nlohmann::json out;
  if (part == "bandwidth") {
    out = run_bandwidth(profile, device, thresholds, checks, buffers);
  } else if (part == "overlap") {
    // Confirmed before failing, like the bandwidth: a miss is measured again, every attempt kept.
    std::vector<std::string> tried;
    for (int attempt = 1; attempt <= kConfirmAttempts; ++attempt) {
      const auto overlap = measure_overlap(profile);
      for (const auto& o : overlap) {
        std::printf("   %-9s %-8s streams: kernel %.2f ms, copy %.2f ms, together %.2f ms: %.0f%% hidden\n",
                    std::string(to_string(o.host)).c_str(), o.separate_streams ? "separate" : "same", o.kernel_ms,
                    o.copy_ms, o.both_ms, o.fraction * 100);
      }
      checks = check_overlap(overlap, device, thresholds);
      out["overlap"] = overlap;
      out["overlap_attempts"].push_back(overlap);
      tried.push_back("attempt " + std::to_string(attempt) + ": " + checks[0].measured);
      if (!checks[0].applicable || checks[0].passed) break;
    }
    if (tried.size() > 1 || !checks[0].passed) checks[0].attempts = tried;
  } else {
    const auto findings = measure_tutorial_findings(profile);
    for (const auto& c : findings) {
      std::printf("   %s\n     A: %s: %.2f ms\n     B: %s: %.2f ms (B/A = %.2f)\n", c.question.c_str(), c.a.c_str(),
                  c.a_ms, c.b.c_str(), c.b_ms, c.ratio());
    }
    out["findings"] = findings;
  }
  return out;
}

// A measurement record that cannot be written (a full disk) is a failure naming the file, never an
// uncaught exception that aborts the process. Returns whether it was written.
bool recorded(const hazardlab::Settings& settings, const hazardlab::PerfRecord& record) {
  if (settings.run_dir.empty()) return true;
  try {
    hazardlab::store_perf(settings.run_dir, record);
    return true;
  } catch (const std::exception& e) {
    std::cout << "hazardlab-perf: FAILED: the measurement record could not be written: " << e.what() << '\n';
    return false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything touches CUDA: GPUs numbered as nvidia-smi numbers them.
  if (const std::string w = hazardlab::use_pci_bus_order(); !w.empty())
    std::cerr << "hazardlab-perf: warning: " << w << '\n';
  CLI::App app{"hazardlab-perf: measures host<->device transfer performance on one GPU"};
  std::string device_arg = "0", part;
  app.add_option("--device", device_arg, "GPU index, or 'none' to report the measurements as skipped");
  app.add_option("--part", part, "bandwidth, overlap, findings, integrity (one round of verified copies) or soak")
      ->required()
      ->check(CLI::IsMember({"bandwidth", "overlap", "findings", "integrity", "soak"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; any bad argument exits 2, as every bad input does.
    return app.exit(e) == 0 ? 0 : 2;
  }

  Settings settings;
  Profile profile;
  Thresholds thresholds;
  try {
    settings = Settings::from_environment();
    profile = profile_from_environment();
    thresholds = thresholds_from_environment();
    (void)reference_tool_from_environment();  // a bad HAZARDLAB_NVBANDWIDTH fails here, before the GPU
    if (!settings.run_dir.empty()) require_run_folder(settings.run_dir);
  } catch (const SettingsError& e) {
    std::cerr << "hazardlab-perf: bad setting: " << e.what() << '\n';
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "hazardlab-perf: " << e.what() << '\n';
    return 2;
  }
  for (const std::string& w : settings.warnings) std::cerr << "hazardlab-perf: warning: " << w << '\n';

  PerfRecord record;
  record.part = part;
  record.profile = profile.name;
  DeviceChoice choice;
  try {
    choice = choose_device(device_arg);
  } catch (const std::invalid_argument& e) {
    std::cerr << "hazardlab-perf: " << e.what() << '\n';
    return 2;
  }
  if (!choice.device) {
    record.status = PerfStatus::Skipped;
    record.reason = "no usable GPU: " + choice.no_device_reason;
    if (!recorded(settings, record)) return 1;
    std::cout << "hazardlab-perf: " << record.reason << '\n';
    if (settings.require_gpu) {
      std::cout << "hazardlab-perf: FAILED: HAZARDLAB_REQUIRE_GPU=1 requires a GPU\n";
      return 1;
    }
    return kSkipExitCode;
  }
  const DeviceFingerprint& device = *choice.device;
  record.device_index = device.index;
  record.device_uuid = device.uuid;
  std::cout << "== perf/" << part << " (" << profile.name << " profile) on GPU " << device.index << " (" << device.name
            << ")\n";

  const auto start = std::chrono::steady_clock::now();
  // Bandwidth and overlap are timed alone on the host (host_lock.hpp): the context, the placement and
  // the buffers are made first, beside the other GPUs' cases (holding the lock shared, as they do), and
  // the lock is taken alone only for the timed part. The findings compare two ways of doing the same
  // thing on one GPU and need no isolation.
  std::optional<HostLock> alone;
  try {
    // Bound before any host memory is allocated, so that pages land on the GPU's NUMA node.
    const HostPlacement placement = bind_to_device(device);
    DeviceScope scope(device.index);
    load_harness_kernels();
    PreparedBuffers buffers;
    if (part == "bandwidth") {
      const HostLock in_use(HostLock::Mode::Shared, std::chrono::minutes(2));
      const Stopwatch watch;
      buffers = prepare_bandwidth_buffers(profile, bandwidth_kinds(device));
      std::printf("   %zu MiB of host buffers prepared in %.2f s, before the host was held alone\n",
                  buffers.bytes_ready() >> 20, watch.seconds());
    }
    if (part == "bandwidth" || part == "overlap") alone.emplace(HostLock::Mode::Exclusive, std::chrono::minutes(5));
    record.measurements = part == "integrity" || part == "soak"
                              ? run_soak_part(part, settings, device, record.checks)
                              : run_part(part, profile, device, thresholds, record.checks, buffers);
    record.measurements["host_placement"] = placement;
    std::printf(
        "   host: NUMA node %d, CPUs %s%s\n", placement.numa_node, placement.cpus.c_str(),
        placement.bound ? " (bound to the GPU's CPUs)" : (" (not bound: " + placement.not_bound_reason + ")").c_str());
    if (alone) {
      record.measurements["isolation"] = {
          {"alone_on_host", alone->held()}, {"waited_ms", alone->waited().count()}, {"lock", HostLock::path()}};
      std::printf("   alone on the host: %s (waited %ld ms for the lock)\n", alone->held() ? "yes" : "no",
                  static_cast<long>(alone->waited().count()));
      // Measured beside other work: the figures stand, but no check is decided by them.
      if (!alone->held()) {
        for (Check& c : record.checks) c.untrusted_reason = "not measured alone on the host: " + alone->why_not();
      }
    }
    record.status = PerfStatus::Measured;
  } catch (const std::exception& e) {
    record.status = PerfStatus::Failed;
    record.reason = e.what();
  }
  record.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const bool written = recorded(settings, record);

  int status = record.status == PerfStatus::Measured && written ? 0 : 1;
  if (status) std::cout << "   FAILED: " << record.reason << '\n';
  for (const Check& c : record.checks) {
    std::cout << "   check " << c.id << ": " << c.result_word() << ": " << c.description << "; " << c.detail() << '\n';
    if (c.applicable && !(c.decided() && c.passed)) status = 1;  // missed, or no verdict from it
  }
  std::cout << "   (" << static_cast<long>(record.duration_ms) << " ms)\n";
  return status;
}
