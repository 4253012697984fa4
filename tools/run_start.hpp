#pragma once
// The start of a run, as ctest drives it: at ctest's start the registration script asks for the
// manifest (the run's id, folders, GPUs and cases); the first test, session-start, then makes the
// run's folder, takes the results root's lock and writes the run record.
#include <filesystem>
#include <iosfwd>
#include <string>

#include "settings/settings.hpp"

namespace hazardlab {

struct ManifestRequest {
  std::filesystem::path default_results_root;  // used when HAZARDLAB_RESULTS_ROOT is not set
  std::filesystem::path default_reports_dir;   // used when HAZARDLAB_REPORTS_DIR is not set
  bool cases_on_failure = false;               // a failed manifest still prints print_ctest_cases' lines
};

// Tab-separated lines for cmake/RegisterGpuCases.cmake.in:
//   warning <text> | run <id> <owner pid> | results <root> | reports <dir>
//   launcher <compute-sanitizer> <tool> | device <index> <label> <name> | nodevice <reason>
//   case <hazard> <variant> <kind> | measurement <part>   (the cases and measurement groups of HAZARDLAB_PROFILE)
// Throws std::invalid_argument when HAZARDLAB_SANITIZE names a tool but compute-sanitizer cannot
// be found.
int print_ctest_manifest(const ManifestRequest& request, const Settings& settings, std::ostream& out);

// Only the device (or nodevice) and case lines of the manifest. Also printed when the manifest fails (a bad
// setting): the registration then gives every test name the run would have had to a test that fails with the
// message, so that a run filtered by name (ctest -R) fails too instead of finding no test.
// The GPUs, the profile's cases and its measurement parts, as ctest's registration reads them.
void print_ctest_cases(std::ostream& out, const std::string& profile);

struct RunStart {
  std::filesystem::path results_root;
  std::string run_id;
  long owner_pid = 0;
};

// 0 started; 1 the results root is held by another run (named); 2 the results root is a folder
// hazardlab will not write into.
int start_run(const RunStart& start, const Settings& settings, std::ostream& out, std::ostream& err);

}  // namespace hazardlab
