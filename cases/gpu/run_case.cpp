// Runs GPU cases: by hand as GoogleTest tests in this process; under ctest (--warm) one variant
// per client, run by the GPU's warm worker process (warm_worker.hpp), which a sticky CUDA error,
// a crash or a failure retires, so that no case can fail or hang another.
//
//   hazardlab-cases --device 0 --hazard h2d-pinned-mutate --variant unsafe-mutate-after-call
//   hazardlab-cases --device 0 --hazard h2d-pinned-mutate          (every variant of a hazard)
//
// Exit status: 0 passed, 1 failed, 2 bad arguments or settings (or a filter that selects no case),
// 77 skipped (no GPU, not applicable).
#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <optional>

#include "cuda/device.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/run_main.hpp"
#include "hazard/registry.hpp"
#include "variant_case.hpp"
#include "warm_worker.hpp"

namespace hazardlab {
namespace {

std::string test_name(std::string id) {
  std::replace(id.begin(), id.end(), '-', '_');
  return id;
}

class VariantCase : public ::testing::Test {
 public:
  VariantCase(const Hazard& h, const Variant& v, DeviceChoice choice, Settings settings)
      : hazard_(h), variant_(v), choice_(std::move(choice)), settings_(std::move(settings)) {}

  void TestBody() override {
    const CaseEnd end =
        run_variant_case(hazard_, variant_, choice_.device, choice_.no_device_reason, settings_, std::cout);
    switch (end.standing) {
      case Standing::Good:
        return;
      case Standing::NotRun:
        GTEST_SKIP() << end.message;
      default:
        FAIL() << end.message;
    }
  }

 private:
  const Hazard& hazard_;
  const Variant& variant_;
  DeviceChoice choice_;
  Settings settings_;
};

std::string no_case_matches(const std::string& hazard_id, const std::string& variant_id) {
  return "no case matches --hazard '" + hazard_id + "' --variant '" + variant_id + "'; `hazardlab list` shows them";
}

const Variant* find_variant(const std::string& hazard_id, const std::string& variant_id, const Hazard** hazard) {
  for (const Hazard& h : Registry::instance().hazards()) {
    if (h.id != hazard_id) continue;
    for (const Variant& v : h.variants) {
      if (v.id != variant_id) continue;
      *hazard = &h;
      return &v;
    }
  }
  return nullptr;
}

// A case in the warm worker: the same case, judged and recorded the same way; the process then
// retires unless the case passed or was skipped and left the GPU without an error.
warm::CaseReply run_in_this_worker(const warm::CaseRequest& request, const Settings& settings) {
  static std::optional<DeviceChoice> choice;  // one GPU per worker, looked up by its first case
  static int cases_run = 0;
  try {
    if (!choice) choice = choose_device(request.device);
  } catch (const std::invalid_argument& e) {
    std::cerr << "hazardlab-cases: " << e.what() << '\n';
    return {kExitBadInput, true};
  }
  const Hazard* hazard = nullptr;
  const Variant* variant = find_variant(request.hazard, request.variant, &hazard);
  if (!variant) {
    std::cerr << "hazardlab-cases: " << no_case_matches(request.hazard, request.variant) << '\n';
    return {kExitBadInput, false};
  }
  ++cases_run;
  std::cout << "\n== in the warm worker process " << ::getpid() << ", its case " << cases_run << '\n';
  const CaseEnd end =
      run_variant_case(*hazard, *variant, choice->device, choice->no_device_reason, settings, std::cout);
  warm::CaseReply reply{exit_code_of(end), end.standing != Standing::Good && end.standing != Standing::NotRun};
  std::cout << "   "
            << (reply.exit_code == 0               ? "PASSED"
                : reply.exit_code == kSkipExitCode ? "SKIPPED"
                                                   : "FAILED")
            << (end.message.empty() ? "" : ": " + end.message) << '\n';
  if (choice->device) {
    if (const std::string left = cuda_error_left_behind(choice->device->index); !left.empty()) {
      std::cout << "   the case left a CUDA error behind (" << left << "): the next case gets a new process\n";
      reply.retire = true;
    }
  }
  return reply;
}

}  // namespace
}  // namespace hazardlab

int main(int argc, char** argv) {
  // Before anything touches CUDA: GPUs numbered as nvidia-smi numbers them.
  if (const std::string w = hazardlab::use_pci_bus_order(); !w.empty())
    std::cerr << "hazardlab-cases: warning: " << w << '\n';
  using namespace hazardlab;
  const int original_argc = argc;
  ::testing::InitGoogleTest(&argc, argv);
  const bool gtest_flags = argc != original_argc;  // GoogleTest's own flags: its runner, in this process

  CLI::App app{"hazardlab-cases: runs hazardlab's GPU cases as GoogleTest tests"};
  std::string device_arg = "0", hazard_id, variant_id;
  bool warm_worker = false;
  app.add_option("--device", device_arg, "GPU index, or 'none' to report the cases as skipped");
  app.add_option("--hazard", hazard_id, "only this hazard");
  app.add_option("--variant", variant_id, "only this variant");
  app.add_flag("--warm", warm_worker,
               "run the case in this GPU's warm worker process (ctest's registration asks for it; "
               "HAZARDLAB_FRESH_PROCESSES=1 or a sanitizer turns it off)");
  return run_main("hazardlab-cases", app, argc, argv, [&]() -> int {
    const Settings settings = Settings::from_environment();
    if (!settings.run_dir.empty()) require_run_folder(settings.run_dir);
    for (const std::string& w : settings.warnings) std::cerr << "hazardlab-cases: warning: " << w << '\n';

    // Before anything touches CUDA: the worker is forked from this process.
    if (warm_worker && !gtest_flags && settings.sanitizer.empty() && !settings.fresh_processes &&
        !hazard_id.empty() && !variant_id.empty()) {
      std::string why_not;
      const warm::CaseRequest request{device_arg, hazard_id, variant_id};
      const auto runner = [settings](const warm::CaseRequest& r) { return run_in_this_worker(r, settings); };
      if (const std::optional<int> rc = warm::run_in_worker(request, runner, why_not)) return *rc;
      std::cerr << "hazardlab-cases: " << why_not << "; running the case in this process\n";
    }

    const DeviceChoice choice = choose_device(device_arg);
    int registered = 0;
    for (const Hazard& h : Registry::instance().hazards()) {
      if (!hazard_id.empty() && h.id != hazard_id) continue;
      for (const Variant& v : h.variants) {
        if (!variant_id.empty() && v.id != variant_id) continue;
        ::testing::RegisterTest(
            test_name(h.id).c_str(), test_name(v.id).c_str(), nullptr, nullptr, __FILE__, __LINE__,
            [&h, &v, choice, settings]() -> ::testing::Test* { return new VariantCase(h, v, choice, settings); });
        ++registered;
      }
    }
    if (registered == 0) throw UsageError(no_case_matches(hazard_id, variant_id));

    const int rc = RUN_ALL_TESTS();
    const auto& unit = *::testing::UnitTest::GetInstance();
    if (unit.test_to_run_count() == 0) {
      throw UsageError("the test filter selects none of the " + std::to_string(registered) +
                       " case(s); `--gtest_list_tests` lists them");
    }
    if (rc == 0 && unit.skipped_test_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count()) {
      return kSkipExitCode;
    }
    return rc;
  });
}
