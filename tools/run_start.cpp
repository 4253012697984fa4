#include "run_start.hpp"

#include <unistd.h>

#include <cstdlib>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "ctest_resource_spec.hpp"
#include "cuda/device.hpp"
#include "hazardlab/atomic_file.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/result_store.hpp"
#include "hazardlab/folder_marker.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/results_root.hpp"
#include "hazardlab/run_record.hpp"
#include "hazard/registry.hpp"
#include "perf/checks.hpp"
#include "plan/ctest_plan.hpp"
#include "plan/gpu_resources.hpp"
#include "program_paths.hpp"
#include "settings_record.hpp"
#include "hazardlab/environment.hpp"

#ifndef HAZARDLAB_CUDA_BIN_DIR
#define HAZARDLAB_CUDA_BIN_DIR ""
#endif

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

// compute-sanitizer ships with the CUDA Toolkit, which is often not on PATH.
fs::path find_compute_sanitizer() {
  if (const std::optional<fs::path> on_path = find_program("compute-sanitizer")) return *on_path;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const std::optional<std::string> home = environment_value_given(var)) {
      if (const fs::path p = fs::path(*home) / "bin" / "compute-sanitizer"; executable(p)) return p;
    }
  }
  for (const fs::path& dir : {fs::path(HAZARDLAB_CUDA_BIN_DIR), fs::path("/usr/local/cuda/bin")}) {
    if (!dir.empty() && executable(dir / "compute-sanitizer")) return dir / "compute-sanitizer";
  }
  return {};
}

// The command line of the run's owner (ctest), to record which cases it selected.
std::vector<std::string> command_of(long pid) {
  std::vector<std::string> args;
  try {
    const std::string text = read_text_file("/proc/" + std::to_string(pid) + "/cmdline");
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('\0', start), text.size());
      args.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  } catch (const std::exception&) {
    // Not Linux, or the process is gone: the selection stays unknown, completeness still counts.
  }
  return args;
}

PlanPrograms manifest_programs(const ManifestRequest& request) {
  return {this_program(), request.cases.empty() ? sibling_program("hazardlab-cases") : request.cases,
          request.perf.empty() ? sibling_program("hazardlab-perf") : request.perf};
}

std::vector<int> device_indexes(const DeviceInventory& inventory) {
  std::vector<int> indexes;
  for (const DeviceFingerprint& d : inventory.devices) indexes.push_back(d.index);
  return indexes;
}

// The GPUs of this machine, and ctest's resource spec of them where the registration asked for it (its file,
// else empty; ctest_resource_spec.hpp).
std::vector<int> planned_devices(const ManifestRequest& request, fs::path& spec) {
  const std::vector<int> devices = device_indexes(discover_devices());
  spec = write_ctest_resource_spec(request.resource_spec_dir, static_cast<long>(::getppid()), devices);
  return devices;
}

}  // namespace

int print_ctest_manifest(const ManifestRequest& request, const Settings& settings, std::ostream& out) {
  PlanRequest plan;
  plan.place.results_root =
      absolute_path(settings.results_root.empty() ? request.default_results_root : settings.results_root);
  plan.place.reports_dir =
      absolute_path(settings.reports_dir.empty() ? request.default_reports_dir : settings.reports_dir);
  // Named by where each came from: the setting, or the registration's default.
  const std::string root_from = settings.results_root.empty() ? "--default-results-root" : "HAZARDLAB_RESULTS_ROOT";
  const std::string reports_from = settings.reports_dir.empty() ? "--default-reports-dir" : "HAZARDLAB_REPORTS_DIR";
  // Said at registration, before the resource spec is written: a file where a folder must be is a slip.
  for (const auto& [folder, what] : {std::pair{plan.place.results_root, "results root (" + root_from + ")"},
                                     std::pair{plan.place.reports_dir, "report folder (" + reports_from + ")"}}) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(folder, ec)) && !fs::is_directory(folder, ec))
      throw std::invalid_argument("the " + what + " " + folder.string() +
                                  " is not a folder; hazardlab writes only into a folder of its own");
  }
  if (folders_overlap(plan.place.results_root, plan.place.reports_dir)) {
    throw std::invalid_argument("the results root " + plan.place.results_root.string() + " and the report folder " +
                                plan.place.reports_dir.string() + " are the same folder or one inside the other; give "
                                "each a folder of its own (" + root_from + ", " + reports_from + ")");
  }
  if (!settings.sanitizer.empty()) {
    plan.sanitizer = find_compute_sanitizer();
    if (plan.sanitizer.empty()) {
      throw std::invalid_argument("HAZARDLAB_SANITIZE='" + settings.sanitizer +
                                  "': compute-sanitizer was not found on PATH, in $CUDA_HOME/bin or in the CUDA "
                                  "Toolkit's bin folder; install it or unset HAZARDLAB_SANITIZE");
    }
    plan.sanitizer_tool = settings.sanitizer;
  }
  fs::path spec;  // the resource spec written last, once nothing is refused
  plan.devices = planned_devices(request, spec);
  const long owner = static_cast<long>(::getppid());  // ctest runs this script's commands itself
  plan.place.run_id = RunId::make(utc_now_compact(), host_name(), owner).text();
  plan.place.owner_pid = owner;
  plan.programs = manifest_programs(request);
  plan.profile = settings.profile;
  plan.soak_duration = settings.soak_duration;
  // Written whole or not at all: a plan that fails half-way registers no half of it.
  std::ostringstream text;
  if (!spec.empty()) write_resource_spec_line(text, spec);
  write_ctest_plan(text, plan_run(plan), settings.warnings);
  out << text.str();
  return 0;
}

void print_failed_ctest_manifest(const ManifestRequest& request, std::ostream& out) {
  PlanRequest plan;
  fs::path spec;
  plan.devices = planned_devices(request, spec);
  plan.programs = manifest_programs(request);
  // The settings were refused, so the profile is unknown: every case of the full run is listed.
  plan.profile = RunProfile::Validation;
  std::ostringstream text;
  if (!spec.empty()) write_resource_spec_line(text, spec);
  write_failed_ctest_plan(text, plan_run(plan), request.failing_command);
  out << text.str();
}

int start_run(const RunStart& start, const Settings& settings, std::ostream& out, std::ostream& err) {
  const fs::path& root = start.results_root;
  try {
    claim_folder(root, kResultsRootMarker, "results root", results_root_entries());
  } catch (const FolderRefused& e) {
    err << "hazardlab: " << e.what() << "; set HAZARDLAB_RESULTS_ROOT to another folder\n";
    return 2;
  }

  // A run id whose folder is there already is refused before the lock is touched: a stale lock is taken over
  // only for a run that can start.
  if (std::error_code ec; fs::exists(fs::symlink_status(run_folder(root, start.run_id.text()), ec))) {
    err << "hazardlab: --run-id '" << start.run_id.text() << "': the run folder "
        << run_folder(root, start.run_id.text()).string() << " exists already; give a new run id\n";
    return 2;
  }
  RunRecord run;
  run.id = start.run_id.text();
  run.host = host_name();
  run.pid = start.owner_pid;
  run.started_at = utc_now_iso8601();
  const LockAttempt lock = acquire_run_lock(root, LockHolder{run.id, run.host, run.pid, run.started_at});
  if (lock.taken_over) {
    out << "hazardlab: the results root's lock was left by " << lock.taken_over->describe()
        << ", whose process is gone; taking it over\n";
  }
  if (!lock.acquired) {
    err << "hazardlab: the results root " << root.string() << " is in use by " << lock.holder->describe()
        << ". Wait for that run to end, or point this one elsewhere with HAZARDLAB_RESULTS_ROOT; if that run is gone "
           "(it ran on another host), remove "
        << (root / kLockFile).string() << '\n';
    return 1;
  }

  try {
    const fs::path dir = run_folder(root, run.id);
    if (fs::exists(dir)) throw std::runtime_error("the run folder " + dir.string() + " exists already");
    // Made under a dot name with its marker, then renamed into place: a run starting beside this one checks
    // runs/ before it asks for the lock, and must never see runs/<id> without its marker (it skips the dot
    // names of folders on their way in: results_root.cpp).
    const fs::path staging = dir.parent_path() / ("." + run.id + ".staging." + std::to_string(::getpid()));
    fs::create_directories(staging);
    write_marker(staging, kRunMarker, "A run folder written by hazardlab.");
    fs::rename(staging, dir);

    const Catalog catalog = Registry::instance().catalog();
    const DeviceInventory inv = discover_devices();
    store_catalog(dir, catalog);
    store_inventory(dir, inv);

    run.hazardlab_version = std::string(hazardlab_version());
    run.devices = inv.devices;
    run.no_device_reason = inv.no_device_reason;
    run.settings = settings_in_force(settings, perf::profile_from_environment(), perf::thresholds_from_environment());
    run.sanitizer = settings.sanitizer;
    run.profile = settings.profile;
    run.warnings = settings.warnings;
    run.selection = selection_from_ctest_command(command_of(start.owner_pid));
    run.registered = registered_names(device_indexes(inv), settings.profile);
    store_run_record(dir, run);
    const Pruned pruned = prune_marked_folders(root / kRunsFolder, kRunMarker, settings.keep_runs, {run.id});
    for (const std::string& name : pruned.removed) {
      out << "hazardlab: removed the run folder " << run_folder(root, name).string() << ", the oldest beyond the "
          << settings.keep_runs << " kept (HAZARDLAB_KEEP_RUNS)\n";
    }
    for (const Pruned::Kept& kept : pruned.kept) {
      out << "hazardlab: kept the run folder " << run_folder(root, kept.name).string() << " beyond the "
          << settings.keep_runs << " kept (HAZARDLAB_KEEP_RUNS): it holds " << kept.foreign
          << ", which hazardlab did not write\n";
    }

    out << "hazardlab: run " << run.id << " started in " << dir.string() << '\n';
    if (inv.devices.empty())
      out << "hazardlab: no usable GPU: " << inv.no_device_reason << "; GPU cases will be skipped\n";
    for (const DeviceFingerprint& d : inv.devices) {
      out << "hazardlab: " << device_label(d.index) << ": " << d.name << " (" << d.pci_bus_id << ")\n";
    }
    if (run.profile != RunProfile::Validation) out << "hazardlab: profile: " << to_string(run.profile) << '\n';
    out << "hazardlab: selection: " << (run.selection.all() ? "all cases" : "filtered by");
    for (const std::string& f : run.selection.filters) out << " '" << f << "'";
    out << '\n';
    return 0;
  } catch (...) {
    release_run_lock(root, run.id);
    throw;
  }
}

}  // namespace hazardlab
