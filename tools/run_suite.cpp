#include "run_suite.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <ostream>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "cuda/device.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/prometheus.hpp"
#include "hazardlab/publish.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/results_root.hpp"
#include "hazardlab/run_record.hpp"
#include "lesson/registry.hpp"
#include "program_paths.hpp"
#include "run_profile.hpp"
#include "run_start.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

constexpr std::chrono::seconds kCaseLimit{600};  // the TIMEOUT ctest's registration gives a case

// Installed: <prefix>/bin/hazardlab and <prefix>/libexec/hazardlab/<name>. Build tree:
// <build>/tools/hazardlab and <build>/cases/<name>.
fs::path sibling_program(const std::string& name) {
  const fs::path found = find_companion(name, {"../libexec/hazardlab", "../cases"});
  if (found.empty()) {
    throw std::invalid_argument(name + " was not found next to " + program_folder().string() +
                                " (looked in ../libexec/hazardlab and ../cases): a broken install?");
  }
  return found;
}

// One GPU's (or no GPU's) share of the run, printed line by line as ctest would.
class Progress {
 public:
  Progress(std::ostream& out, int total) : out_(out), total_(total) {}
  void done(const std::string& name, const ChildEnd& end) {
    const std::lock_guard<std::mutex> hold(mutex_);
    const std::string word = end.exit_code == 0    ? "passed"
                             : end.exit_code == 77 ? "skipped"
                             : end.exit_code == 1  ? "FAILED"
                                                   : "FAILED (" + end.how + ")";
    out_ << "hazardlab: " << ++finished_ << "/" << total_ << " " << name << " ... " << word << " ("
         << static_cast<long>(end.seconds * 1000) << " ms)\n"
         << std::flush;
    if (end.exit_code != 0 && end.exit_code != 77) failed_.push_back({name, end.how});
  }
  // The cases that ended in failure (a failed guard, a crash, a result that could not be written),
  // by name, with how they ended.
  std::vector<std::pair<std::string, std::string>> failed() {
    const std::lock_guard<std::mutex> hold(mutex_);
    return failed_;
  }

 private:
  std::ostream& out_;
  int total_;
  int finished_ = 0;
  std::vector<std::pair<std::string, std::string>> failed_;
  std::mutex mutex_;
};

struct Target {
  std::string device;  // the --device argument: an index or "none"
  std::string label;   // gpu0, or nogpu
};

}  // namespace

int run_suite(const RunSuiteRequest& request, const Settings& settings, std::ostream& out, std::ostream& err) {
  if (!settings.sanitizer.empty()) {
    throw std::invalid_argument("HAZARDLAB_SANITIZE='" + settings.sanitizer +
                                "': sanitizer runs need ctest and the CUDA Toolkit (`ctest --preset suite` in a build "
                                "tree); `hazardlab run` runs the validation suite");
  }
  const fs::path prometheus = !request.prometheus_dir.empty() ? request.prometheus_dir : settings.prometheus_dir;
  if (!prometheus.empty()) require_prometheus_folder(prometheus);  // bad input: before any GPU work
  const fs::path cases = sibling_program("hazardlab-cases"), perf = sibling_program("hazardlab-perf");
  const auto chosen = [](const fs::path& given, const fs::path& environment, const char* fallback) {
    return absolute_path(!given.empty() ? given : !environment.empty() ? environment : fs::path(fallback));
  };
  const fs::path root = chosen(request.results_root, settings.results_root, "hazardlab-results");
  const fs::path reports = chosen(request.reports_dir, settings.reports_dir, "hazardlab-reports");
  // Every output place is checked before the first case: a refusal costs nothing and a run is not
  // thrown away at its end.
  if (folders_overlap(root, reports)) {
    throw std::invalid_argument("the results root " + root.string() + " and the report folder " + reports.string() +
                                " are " + (root == reports ? "the same folder" : "one inside the other") +
                                "; give each a folder of its own (--results-root, --reports-dir)");
  }
  try {
    claim_folder(reports, kReportsMarker, "report folder",
                 {std::string(kReportsMarker), std::string(kRunsFolder), std::string(kCurrentLink),
                  std::string(kLatestLink)});
  } catch (const FolderRefused& e) {
    err << "hazardlab: " << e.what() << "; nothing was run\n";
    return 2;
  }
  const long owner = static_cast<long>(::getpid());
  const std::string run_id = make_run_id(utc_now_compact(), host_name(), owner);
  if (const int rc = start_run(RunStart{root, run_id, owner}, settings, out, err); rc != 0) return rc;
  const fs::path run_dir = run_folder(root, run_id);
  ::setenv("HAZARDLAB_RUN_DIR", run_dir.c_str(), 1);

  std::vector<Target> targets;
  for (const DeviceFingerprint& d : discover_devices().devices)
    targets.push_back({std::to_string(d.index), device_label(d.index)});
  if (targets.empty()) targets.push_back({"none", device_label(-1)});
  const std::vector<ProfileCase> chosen_cases = profile_cases(settings.profile);
  const std::vector<std::string_view> parts = profile_perf_parts(settings.profile);
  const auto has_part = [&](std::string_view p) { return std::find(parts.begin(), parts.end(), p) != parts.end(); };
  const int total = static_cast<int>((chosen_cases.size() + parts.size()) * targets.size());
  Progress progress(out, total);
  const fs::path logs = run_dir / "logs";
  const auto perf_part = [&](const Target& t, std::string_view part) {
    if (!has_part(part)) return;
    const std::string name = t.label + "/perf/" + std::string(part);
    // A soak runs for its duration and stops on time; the limit only catches one that does not.
    const auto limit = part == "soak" ? kCaseLimit + settings.soak_duration : kCaseLimit;
    progress.done(name, run_child({perf.string(), "--device", t.device, "--part", std::string(part)},
                                  logs / t.label / ("perf--" + std::string(part) + ".log"), limit));
  };

  const auto run_case = [&](const Target& t, const Hazard& h, const Variant& v) {
    progress.done(t.label + "/" + h.id + "/" + v.id,
                  run_child({cases.string(), "--device", t.device, "--hazard", h.id, "--variant", v.id, "--warm"},
                            logs / t.label / (h.id + "--" + v.id + ".log"), kCaseLimit));
  };
  // Every GPU's bandwidth and overlap first, all GPUs at once: their set-up overlaps and the host lock
  // gives their timed parts turns; no case runs yet, so none has to be waited out.
  std::vector<std::thread> measuring;
  for (const Target& t : targets) {
    measuring.emplace_back([&, t] {
      perf_part(t, "bandwidth");
      perf_part(t, "overlap");
    });
  }
  for (std::thread& m : measuring) m.join();
  // Then every GPU's cases at once, one at a time per GPU, and its findings. A case that also uses the
  // next GPU (peer) runs in its own GPU's turn, as under ctest (RegisterGpuCases.cmake.in says why).
  std::vector<std::thread> gpus;
  for (const Target& t : targets) {
    gpus.emplace_back([&, t] {
      for (const auto& [h, v] : chosen_cases) run_case(t, *h, *v);
      // Verified copies after the cases: they time nothing, so they need not run alone.
      for (std::string_view part : {"findings", "integrity", "soak"}) perf_part(t, part);
    });
  }
  for (std::thread& g : gpus) g.join();
  // A case that failed without leaving a result (it could not write it: a full disk) fails the run. Said
  // before the reports, whose last line is the node's line that a health-check wrapper reads.
  const auto failed = progress.failed();
  std::vector<std::string> failed_names;
  for (const auto& [name, how] : failed) failed_names.push_back(name);
  if (!failed.empty()) {
    err << "hazardlab: " << failed.size() << " case(s) FAILED; their logs are in " << logs.string() << ":\n";
    for (const auto& [name, how] : failed) err << "hazardlab:   " << name << " (" << how << ")\n";
  }
  int status = report_run(
      run_dir, ReportOptions{reports, settings.require_gpu, settings.keep_runs, failed_names, prometheus}, out, err);
  if (!failed.empty() && status == 0) status = 1;
  return status;
}

}  // namespace hazardlab
