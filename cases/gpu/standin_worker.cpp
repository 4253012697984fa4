// A stand-in for hazardlab-cases that needs no GPU, for the scenario that kills a warm worker in the
// middle of a case (cases/scenarios/test_runs.py, worker-dying-mid-case-fails-it). It runs its cases
// through the real warm worker (warm_worker.hpp) and records the real crash marker (variant_case.hpp)
// into HAZARDLAB_RUN_DIR; only the case itself is made up:
//
//   hazardlab-standin-worker <hazard> <variant>
//
// The case named by STANDIN_DIES_IN (a variant id) kills its worker with SIGKILL after the marker and
// before its result, as a crash would; any other case records what a case without a GPU records (skipped).
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iostream>

#include "hazardlab/result_store.hpp"
#include "variant_case.hpp"
#include "warm_worker.hpp"
#include "hazardlab/environment.hpp"

using namespace hazardlab;

namespace {

warm::CaseReply run_standin_case(const warm::CaseRequest& request, const Settings& settings) {
  Hazard hazard;
  hazard.id = request.hazard;
  const Variant variant{request.variant, VariantKind::Control, "a stand-in case", {}, nullptr, nullptr};
  std::cout << "\n== in the stand-in worker process " << ::getpid() << ": " << request.hazard << " / "
            << request.variant << '\n';
  if (!settings.run_dir.empty()) store_result(settings.run_dir, crash_marker(hazard, variant, -1));
  const std::optional<std::string> dies_in = environment_value("STANDIN_DIES_IN");
  if (dies_in && request.variant == *dies_in) {
    std::cout << "   the worker kills itself mid-case\n" << std::flush;
    ::raise(SIGKILL);
  }
  VariantResult skipped = crash_marker(hazard, variant, -1);
  skipped.outcome = Outcome::Skipped;
  skipped.reason = "no usable GPU: a stand-in case";
  if (!settings.run_dir.empty()) store_result(settings.run_dir, skipped);
  std::cout << "   SKIPPED: " << skipped.reason << '\n';
  return {kSkipExitCode, false};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: hazardlab-standin-worker <hazard> <variant>\n";
    return 2;
  }
  const Settings settings = Settings::from_environment();
  const warm::CaseRequest request{"none", argv[1], argv[2]};
  std::string why_not;
  const auto runner = [settings](const warm::CaseRequest& r) { return run_standin_case(r, settings); };
  if (const std::optional<int> rc = warm::run_in_worker(request, runner, why_not)) return *rc;
  std::cerr << "hazardlab-standin-worker: " << why_not << '\n';
  return 1;
}
