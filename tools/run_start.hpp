#pragma once
// The start of a run, as ctest drives it: at ctest's start the registration script asks for the
// run's plan (harness/plan/run_plan.hpp: its id, folders, GPUs and tests); the first test,
// session-start, then makes the run's folder, takes the results root's lock and writes the run record.
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "hazardlab/run_id.hpp"
#include "settings/settings.hpp"

namespace hazardlab {

struct ManifestRequest {
  std::filesystem::path default_results_root;  // used when HAZARDLAB_RESULTS_ROOT is not set
  std::filesystem::path default_reports_dir;   // used when HAZARDLAB_REPORTS_DIR is not set
  std::filesystem::path cases;                 // hazardlab-cases, as the build made it; else the one beside this
  std::filesystem::path perf;                  // hazardlab-perf, likewise
  std::filesystem::path resource_spec_dir;     // where ctest's resource spec goes (harness/plan/gpu_resources.hpp)
  bool cases_on_failure = false;               // a failed manifest still prints print_failed_ctest_manifest's
  std::vector<std::string> failing_command;    // this command without --cases-on-failure: says only the error
};

// The run's plan for cmake/RegisterGpuCases.cmake.in (and, where request.resource_spec_dir names a folder, ctest's
// resource spec of the plan's GPUs, written first whatever the settings say, one file per ctest), in the lines plan/ctest_plan.hpp writes: made
// from the settings, the GPUs of this machine and the registered cases. Throws std::invalid_argument when
// HAZARDLAB_SANITIZE names a tool but compute-sanitizer cannot be found, or the folders overlap.
int print_ctest_manifest(const ManifestRequest& request, const Settings& settings, std::ostream& out);

// Printed when the manifest fails (a bad setting), after the resource spec is written: every test name the full run would have had, as a
// test that runs request.failing_command, which fails with the message; so a run filtered by name (ctest
// -R) or label fails too instead of finding no test.
void print_failed_ctest_manifest(const ManifestRequest& request, std::ostream& out);

struct RunStart {
  std::filesystem::path results_root;
  RunId run_id;  // checked where it came in (--run-id, or made for `hazardlab run`)
  long owner_pid = 0;
};

// 0 started; 1 the results root is held by another run (named); 2 the results root is a folder
// hazardlab will not write into.
int start_run(const RunStart& start, const Settings& settings, std::ostream& out, std::ostream& err);

}  // namespace hazardlab
