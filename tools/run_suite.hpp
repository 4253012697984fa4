#pragma once
// `hazardlab run`: the whole suite on every GPU of this machine without ctest or a build tree,
// as an installed package runs it on a GPU node. It runs the run plan (harness/plan/run_plan.hpp)
// that ctest's registration adds, phase after phase:
//
//   1. the run starts (session-start: folder, lock, record), in this process;
//   2. bandwidth and overlap of every GPU, the GPUs side by side, the host lock giving their timed
//      parts turns, with no case running;
//   3. on every GPU at once, one thread per GPU: each case in its own client process (the GPU's
//      warm worker runs it, as under ctest), within the plan's limit, then the GPU's verified copies;
//   4. the reports, in this process, whose verdicts give the exit status.
//
// Each test's output goes to <run folder>/logs/<gpu>/<hazard>--<variant>.log (perf--<part>.log).
#include <filesystem>
#include <iosfwd>
#include <vector>

#include "settings/settings.hpp"

namespace hazardlab {

// Folders: the option given, else HAZARDLAB_RESULTS_ROOT / HAZARDLAB_REPORTS_DIR, else
// ./hazardlab-results and ./hazardlab-reports.
struct RunSuiteRequest {
  std::filesystem::path results_root;
  std::filesystem::path reports_dir;
  std::filesystem::path prometheus_dir;  // else HAZARDLAB_PROMETHEUS_DIR; empty: no metrics file
  // The settings the command line gave (--profile, --duration), already in `settings`: every case and
  // measurement the run starts reads its settings from its environment, as under ctest, so they go there too.
  std::vector<CommandLineSetting> settings_given{};
};

// Exit status as the report's: 0 every GPU PASS (or SKIPPED without a GPU), 1 anything else, 2 bad
// input (a sanitizer, which needs ctest; the case binaries not found next to this one).
int run_suite(const RunSuiteRequest& request, const Settings& settings, std::ostream& out, std::ostream& err);

}  // namespace hazardlab
