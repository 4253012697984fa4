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
#include "hazardlab/environment.hpp"
#include "hazardlab/prometheus.hpp"
#include "hazardlab/publish.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/results_root.hpp"
#include "hazardlab/run_record.hpp"
#include "hazardlab/settings_table.hpp"
#include "plan/run_plan.hpp"
#include "program_paths.hpp"
#include "run_start.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

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

// Each GPU's tests of `phases` one after the other, the GPUs side by side, as ctest's resource locks let
// them run.
void run_side_by_side(const RunPlan& plan, std::vector<Phase> phases, Progress& progress) {
  std::vector<std::thread> gpus;
  for (const std::vector<const PlannedTest*>& turn : turns_by_gpu(plan, std::move(phases))) {
    gpus.emplace_back([&plan, &progress, turn] {
      for (const PlannedTest* t : turn) progress.done(t->name, run_child(t->command, plan.run_dir / t->log, t->timeout));
    });
  }
  for (std::thread& g : gpus) g.join();
}

}  // namespace

int run_suite(const RunSuiteRequest& request, const Settings& settings, std::ostream& out, std::ostream& err) {
  if (!settings.sanitizer.empty()) {
    throw std::invalid_argument("HAZARDLAB_SANITIZE='" + settings.sanitizer +
                                "': sanitizer runs need ctest and the CUDA Toolkit (`ctest --preset suite` in a build "
                                "tree); `hazardlab run` runs the validation suite");
  }
  // The run folder is the run's to make and hand its cases: one set by hand would be replaced without a word.
  if (const std::optional<std::string> run_dir = environment_value_given(setting::kRunDir.name))
    throw std::invalid_argument(std::string(setting::kRunDir.name) + "='" + *run_dir +
                                "' is set: it is the variable hazardlab run sets for each case to the run folder it "
                                "makes; unset it (--results-root chooses where runs go)");
  const fs::path prometheus = !request.prometheus_dir.empty() ? request.prometheus_dir : settings.prometheus_dir;
  const std::string prometheus_given_as(request.prometheus_dir.empty() ? setting::kPrometheusDir.name : "--prometheus");
  if (!prometheus.empty()) require_prometheus_folder(prometheus, prometheus_given_as);  // bad input: before any GPU work
  if (!request.prometheus_dir.empty() && !settings.prometheus_dir.empty())  // overridden, and judged all the same
    require_prometheus_folder(settings.prometheus_dir, setting::kPrometheusDir.name);
  PlanRequest request_plan;  // the programs first: a broken install is refused before anything is written
  request_plan.programs = {this_program(), sibling_program("hazardlab-cases"), sibling_program("hazardlab-perf")};
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
    // Both judged before either is made: a refused results root leaves no report folder behind.
    judge_folder(root, kResultsRootMarker, "results root", results_root_entries());
    claim_folder(reports, kReportsMarker, "report folder", report_folder_entries());
  } catch (const FolderRefused& e) {
    err << "hazardlab: " << e.what() << "; nothing was run\n";
    return 2;
  }
  // Before the run starts: its record reads the measurements' settings (the profile's) from here too.
  for (const CommandLineSetting& given : request.settings_given)
    ::setenv(std::string(given.setting->name).c_str(), given.value.c_str(), 1);
  const long owner = static_cast<long>(::getpid());
  const RunId run_id = RunId::make(utc_now_compact(), host_name(), owner);
  request_plan.place = {root, reports, run_id.text(), owner};
  for (const DeviceFingerprint& d : discover_devices().devices) request_plan.devices.push_back(d.index);
  request_plan.profile = settings.profile;
  request_plan.soak_duration = settings.soak_duration;
  const RunPlan plan = plan_run(request_plan);
  // The plan's session-start, in this process: its lines are this command's.
  if (const int rc = start_run(RunStart{root, run_id, owner}, settings, out, err); rc != 0) return rc;
  // The plan's environment, as ctest gives it to every test: each child inherits it.
  for (const std::string& variable : plan.environment) {
    const std::size_t eq = variable.find('=');
    ::setenv(variable.substr(0, eq).c_str(), variable.substr(eq + 1).c_str(), 1);
  }
  int total = 0;
  for (const PlannedTest& t : plan.tests) total += t.phase != Phase::Start && t.phase != Phase::Report;
  Progress progress(out, total);
  // Every GPU's bandwidth and overlap first, all GPUs at once: their set-up overlaps and the host lock
  // gives their timed parts turns; no case runs yet, so none has to be waited out.
  run_side_by_side(plan, {Phase::Timed}, progress);
  // Then every GPU's cases at once, one at a time per GPU, and its verified copies, which time nothing.
  run_side_by_side(plan, {Phase::Case, Phase::Untimed}, progress);
  const fs::path logs = plan.run_dir / "logs";
  // A case that failed without leaving a result (it could not write it: a full disk) fails the run. Said
  // before the reports, whose last line is the node's line that a health-check wrapper reads.
  const auto failed = progress.failed();
  std::vector<std::string> failed_names;
  for (const auto& [name, how] : failed) failed_names.push_back(name);
  if (!failed.empty()) {
    err << "hazardlab: " << failed.size() << " case(s) FAILED; their logs are in " << logs.string() << ":\n";
    for (const auto& [name, how] : failed) err << "hazardlab:   " << name << " (" << how << ")\n";
  }
  // The plan's report, in this process.
  ReportOptions report_options{reports, settings.require_gpu, settings.keep_runs, failed_names, prometheus};
  report_options.prometheus_given_as = prometheus_given_as;
  int status = report_run(plan.run_dir, report_options, out, err);
  if (!failed.empty() && status == 0) status = 1;
  return status;
}

}  // namespace hazardlab
