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
#include <iostream>

#include "cuda/check.hpp"
#include "cuda/kernel_loading.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/results_layout.hpp"
#include "perf/checks.hpp"
#include "settings/settings.hpp"

using namespace hazardlab;
using namespace hazardlab::perf;

namespace {

constexpr int kSkipExitCode = 77;

void print_bandwidth(const std::vector<BandwidthPoint>& points) {
  std::printf("   %-4s %-15s %12s %10s %10s %10s\n", "dir", "host memory", "bytes", "median", "min", "max");
  for (const auto& b : points) {
    std::printf("   %-4s %-15s %12zu %7.2f GB/s %7.2f %7.2f\n", std::string(to_string(b.direction)).c_str(),
                std::string(to_string(b.host)).c_str(), b.bytes, b.median_gbps, b.min_gbps, b.max_gbps);
  }
}

nlohmann::json run_part(const std::string& part, const Profile& profile, const DeviceFingerprint& device,
                        const Thresholds& thresholds, std::vector<Check>& checks) {
  nlohmann::json out;
  if (part == "bandwidth") {
    std::vector<HostMemoryKind> kinds{HostMemoryKind::Pageable, HostMemoryKind::Pinned, HostMemoryKind::WriteCombined};
    if (device.host_register_supported) kinds.insert(kinds.begin() + 2, HostMemoryKind::Registered);
    const auto points = measure_bandwidth(profile, kinds);
    print_bandwidth(points);
    const ConcurrentResult both = measure_concurrent(profile);
    std::printf("   concurrent H2D + D2H, %zu B each: %.2f + %.2f GB/s (alone %.2f and %.2f)\n", both.bytes,
                both.h2d_gbps, both.d2h_gbps, both.h2d_alone_gbps, both.d2h_alone_gbps);
    out["bandwidth"] = points;
    out["concurrent"] = both;
    out["link_raw_gbps_per_direction"] = device.pcie.max_raw_gbps_per_direction();
    checks = check_link_bandwidth(points, device, thresholds);
  } else if (part == "overlap") {
    const auto overlap = measure_overlap(profile);
    for (const auto& o : overlap) {
      std::printf("   %-9s %-8s streams: kernel %.2f ms, copy %.2f ms, together %.2f ms: %.0f%% hidden\n",
                  std::string(to_string(o.host)).c_str(), o.separate_streams ? "separate" : "same", o.kernel_ms,
                  o.copy_ms, o.both_ms, o.fraction * 100);
    }
    out["overlap"] = overlap;
    checks = check_overlap(overlap, device, thresholds);
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hazardlab-perf: measures host<->device transfer performance on one GPU"};
  std::string device_arg = "0", part;
  app.add_option("--device", device_arg, "GPU index, or 'none' to report the measurements as skipped");
  app.add_option("--part", part, "bandwidth, overlap or findings")
      ->required()
      ->check(CLI::IsMember({"bandwidth", "overlap", "findings"}));
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
    if (!settings.run_dir.empty()) store_perf(settings.run_dir, record);
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
  try {
    DeviceScope scope(device.index);
    load_harness_kernels();
    record.measurements = run_part(part, profile, device, thresholds, record.checks);
    record.status = PerfStatus::Measured;
  } catch (const std::exception& e) {
    record.status = PerfStatus::Failed;
    record.reason = e.what();
  }
  record.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!settings.run_dir.empty()) store_perf(settings.run_dir, record);

  int status = record.status == PerfStatus::Measured ? 0 : 1;
  if (status) std::cout << "   FAILED: " << record.reason << '\n';
  for (const Check& c : record.checks) {
    const char* verdict = !c.applicable ? "NOT APPLICABLE" : c.passed ? "PASSED" : "FAILED";
    std::cout << "   check " << c.id << ": " << verdict << ": " << c.description << "; "
              << (c.applicable ? c.measured : c.not_applicable_reason) << '\n';
    if (c.applicable && !c.passed) status = 1;
  }
  std::cout << "   (" << static_cast<long>(record.duration_ms) << " ms)\n";
  return status;
}
