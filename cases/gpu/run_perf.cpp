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
#include <optional>

#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/kernel_loading.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/run_main.hpp"
#include "perf/checks.hpp"
#include "perf/host_lock.hpp"
#include "perf/parts.hpp"
#include "perf/reference.hpp"
#include "settings/settings.hpp"
#include "soak/soak.hpp"
#include "variant_case.hpp"  // kSkipExitCode: ctest's skip, as the cases read it

using namespace hazardlab;
using namespace hazardlab::perf;

namespace {

// The part asked for, measured (harness/perf/parts.hpp, harness/soak/soak.hpp).
Measurements measure_part(MeasurementGroup part, const Settings& settings, const Profile& profile,
                          const DeviceFingerprint& device, const Thresholds& thresholds, std::vector<Check>& checks,
                          PreparedBuffers& buffers) {
  if (part == MeasurementGroup::Bandwidth) return measure_bandwidth_part(profile, device, thresholds, checks, buffers);
  if (part == MeasurementGroup::Overlap) return measure_overlap_part(profile, device, thresholds, checks);
  if (part == MeasurementGroup::Findings) return measure_findings_part(profile);
  soak::SoakOptions o;
  o.seed = settings.seed.value_or(static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()));
  o.fault = settings.soak_inject_fault;
  o.one_round = part == MeasurementGroup::Integrity;
  o.duration = settings.soak_duration;
  return soak::measure_soak_part(o, device.index, checks);
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

// One measurement group on the GPU --device names, recorded in the run folder: 0 measured and every check
// held, 1 failed or a check missed, 77 no GPU.
int measure(MeasurementGroup part, const Settings& settings, const Profile& profile, const Thresholds& thresholds,
            const std::string& device_arg) {
  PerfRecord record;
  record.part = part;
  record.profile = profile.name;
  const DeviceChoice choice = choose_device(device_arg);  // a bad --device is bad input: run_main says so
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
  std::cout << "== perf/" << to_string(part) << " (" << profile.name << " profile) on GPU " << device.index << " (" << device.name
            << ")\n";

  const auto start = std::chrono::steady_clock::now();
  // Bandwidth and overlap are timed alone on the host (host_lock.hpp), or alone among the GPUs of their timing
  // group (HAZARDLAB_TIMED_TURNS): the context, the placement and the buffers are made first, beside the other
  // GPUs' cases (holding the lock shared, as they do), and the lock is taken alone only for the timed part. The
  // findings compare two ways of doing the same thing on one GPU and need no isolation.
  try {
    const TimedTurns turns = timed_turns_from_environment();
    const std::string group = timing_group(device, turns);
    // Bound before any host memory is allocated, so that pages land on the GPU's NUMA node.
    const HostPlacement placement = bind_to_device(device);
    DeviceScope scope(device.index);
    load_harness_kernels();
    PreparedBuffers buffers;
    if (part == MeasurementGroup::Bandwidth) {
      const HostLock in_use(HostLock::Mode::Shared, std::chrono::minutes(2), {group});
      const Stopwatch watch;
      buffers = prepare_bandwidth_buffers(profile, bandwidth_kinds(device));
      std::printf("   %zu MiB of host buffers prepared in %.2f s, before the host was held alone\n",
                  buffers.bytes_ready() >> 20, watch.seconds());
    }
    std::optional<HostLock> alone;
    if (timed_alone(part)) alone.emplace(HostLock::Mode::Exclusive, std::chrono::minutes(5), std::vector{group});
    const auto timed_from = std::chrono::steady_clock::now();
    record.measurements = measure_part(part, settings, profile, device, thresholds, record.checks, buffers);
    // What every other GPU of its timing group waits for: the floor of a run's time grows by this for each
    // GPU that takes turns (docs/fleet.md).
    const double timed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - timed_from).count();
    record.measurements.host_placement = placement;
    std::printf(
        "   host: NUMA node %d, CPUs %s%s\n", placement.numa_node, placement.cpus.c_str(),
        placement.bound ? " (bound to the GPU's CPUs)" : (" (not bound: " + placement.not_bound_reason + ")").c_str());
    if (alone) {
      record.measurements.isolation = Isolation{alone->held(), static_cast<long>(alone->waited().count()),
                                                alone->files()};
      std::printf("   alone on the host: %s (timed turns: %s; waited %ld ms for %s, then held it %.2f s)\n",
                  alone->held() ? "yes" : "no", std::string(setting_word(turns)).c_str(),
                  static_cast<long>(alone->waited().count()), alone->files().c_str(), timed_s);
      // Measured beside other work: the figures stand, but no check is decided by them.
      if (!alone->held()) {
        for (Check& c : record.checks) c.untrusted_reason = "not measured alone on the host: " + alone->why_not();
      }
    }
    alone.reset();
    // The lowest-numbered of several GPUs also measures them all at once, and every pair: with every timing group
    // of the host held alone, after its own figures (so the other groups' turns may come between).
    if (part == MeasurementGroup::Bandwidth && record.measurements.bandwidth) {
      if (const std::vector<DeviceFingerprint> all = several_gpus_measured_by(profile, device); !all.empty()) {
        const HostLock whole(HostLock::Mode::Exclusive, std::chrono::minutes(5), timing_groups(all, turns));
        const Stopwatch watch;
        measure_several_gpus(profile, all, *record.measurements.bandwidth);
        std::printf("   every GPU's figures alone on the host: %s (waited %ld ms for %s, then held them %.2f s)\n",
                    whole.held() ? "yes" : "no", static_cast<long>(whole.waited().count()), whole.files().c_str(),
                    watch.seconds());
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

}  // namespace

int main(int argc, char** argv) {
  // Before anything touches CUDA: GPUs numbered as nvidia-smi numbers them.
  if (const std::string w = hazardlab::use_pci_bus_order(); !w.empty())
    std::cerr << "hazardlab-perf: warning: " << w << '\n';
  CLI::App app{"hazardlab-perf: measures host<->device transfer performance on one GPU"};
  std::string device_arg = "0", part_name;
  std::vector<std::string> groups;
  for (MeasurementGroup g : kMeasurementGroups) groups.emplace_back(to_string(g));
  app.add_option("--device", device_arg, "GPU index, or 'none' to report the measurements as skipped");
  app.add_option("--part", part_name, "bandwidth, overlap, findings, integrity (one round of verified copies) or soak")
      ->required()
      ->check(CLI::IsMember(groups));
  return run_main("hazardlab-perf", app, argc, argv, [&]() -> int {
    const MeasurementGroup part = *measurement_group_from_string(part_name);  // IsMember checked it
    const Settings settings = Settings::from_environment();
    const Profile profile = profile_from_environment();
    const Thresholds thresholds = thresholds_from_environment();
    (void)reference_tool_from_environment();  // a bad HAZARDLAB_NVBANDWIDTH fails here, before the GPU
    if (!settings.run_dir.empty()) require_run_folder(settings.run_dir);
    for (const std::string& w : settings.warnings) std::cerr << "hazardlab-perf: warning: " << w << '\n';
    return measure(part, settings, profile, thresholds, device_arg);
  });
}
