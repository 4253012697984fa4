#pragma once
// The run plan: every test of a run, made once from the registry (through the run profile) and the
// GPUs, with its name, program and arguments, labels, lock, time limit and phase. ctest's
// registration adds exactly these tests (ctest_plan.hpp writes them for it); `hazardlab run` runs
// them itself, phase after phase, each GPU's tests one at a time and the GPUs side by side.
//
// The order, under both:
//   1. Start: the run's folder, the results root's lock and the run record (session-start);
//   2. Timed: every GPU's bandwidth and overlap, before any case, so that no case runs on another GPU
//      while they are timed (the host lock, perf/host_lock.hpp, gives their timed parts turns);
//   3. Case: each GPU's cases, one at a time per GPU: gates and watchdogs must not compete;
//   4. Untimed: the measurement parts that time nothing (findings, integrity, soak), after the cases;
//   5. Report: every GPU's reports from the run folder.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "hazardlab/run_profile.hpp"

namespace hazardlab {

enum class Phase { Start, Timed, Case, Untimed, Report };

struct PlannedTest {
  std::string name;                   // case_name() or measurement_name(); hazardlab/... for the fixtures
  Phase phase = Phase::Case;
  int device_index = -1;              // -1: no GPU (the case runs on --device none and skips), or a fixture
  std::vector<std::string> command;   // program and arguments, a sanitizer's launcher first
  std::vector<std::string> labels;    // ctest's labels: what `ctest -L` selects by
  std::string lock;                   // held while it runs: its GPU's label; "" for the fixtures
  std::chrono::seconds timeout{0};    // 0: none (the fixtures)
  std::filesystem::path log;          // under the run folder: where `hazardlab run` keeps its output ("" for
                                      // the fixtures, which it runs in its own process)
};

// Where a run keeps its results and reports, and who owns it (ctest, or `hazardlab run`).
struct RunPlace {
  std::filesystem::path results_root;
  std::filesystem::path reports_dir;
  std::string run_id;  // a RunId's text (hazardlab/run_id.hpp), as the plan's commands pass it on
  long owner_pid = 0;
};

struct PlanPrograms {
  std::filesystem::path tool;   // hazardlab: session-start and report
  std::filesystem::path cases;  // hazardlab-cases
  std::filesystem::path perf;   // hazardlab-perf
};

struct PlanRequest {
  RunPlace place;
  PlanPrograms programs;
  std::vector<int> devices;                  // the GPUs' indexes; none: every case runs on no GPU, and skips
  RunProfile profile = RunProfile::Validation;  // HAZARDLAB_PROFILE (plan/profile.hpp)
  std::chrono::seconds soak_duration{600};   // HAZARDLAB_SOAK_DURATION: the soak's limit is 600 s past it
  std::filesystem::path sanitizer;           // compute-sanitizer, or empty: none (HAZARDLAB_SANITIZE)
  std::string sanitizer_tool;                // memcheck, racecheck, ...
};

struct RunPlan {
  RunPlace place;
  std::filesystem::path run_dir;         // run_folder(results root, run id): made here, and only here
  std::vector<std::string> environment;  // NAME=value, for every test of the run
  std::vector<PlannedTest> tests;        // as ctest registers them: the fixtures, then each GPU's cases and parts
};

RunPlan plan_run(const PlanRequest& request);

// The run record's registered cases: every name the profile gives a run on `devices`. Under a sanitizer
// the plan times nothing, but the measurements stay registered: such a run is never a complete validation.
std::vector<std::string> registered_names(const std::vector<int>& devices, RunProfile profile);

// Each GPU's tests of `phases`, in the plan's order: what one GPU runs, one after the other, while the
// other GPUs run theirs.
std::vector<std::vector<const PlannedTest*>> turns_by_gpu(const RunPlan& plan, std::vector<Phase> phases);

}  // namespace hazardlab
