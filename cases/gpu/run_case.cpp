// Runs GPU cases as GoogleTest tests, one variant on one GPU per process when ctest runs it, so
// that a sticky CUDA error in one case cannot fail or hang another.
//
//   hazardlab-cases --device 0 --hazard h2d-pinned-mutate --variant unsafe-mutate-after-call
//   hazardlab-cases --device 0 --hazard h2d-pinned-mutate          (every variant of a hazard)
//
// Exit status: 0 passed, 1 failed, 2 bad arguments or settings (or a filter that selects no case),
// 77 skipped (no GPU, not applicable).
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <optional>

#include "hazardlab/result_store.hpp"
#include "hazardlab/results_layout.hpp"
#include "judge/judge_variant.hpp"
#include "lesson/registry.hpp"
#include "perf/host_lock.hpp"

namespace hazardlab {
namespace {

constexpr int kSkipExitCode = 77;

std::string test_name(std::string id) {
  std::replace(id.begin(), id.end(), '-', '_');
  return id;
}

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

class VariantCase : public ::testing::Test {
 public:
  VariantCase(const Hazard& h, const Variant& v, std::optional<DeviceFingerprint> device, std::string no_device,
              Settings settings)
      : hazard_(h),
        variant_(v),
        device_(std::move(device)),
        no_device_(std::move(no_device)),
        settings_(std::move(settings)) {}

  void TestBody() override {
    std::cout << "\n== " << hazard_.id << " / " << variant_.id << " (" << to_string(variant_.kind) << ") on "
              << (device_ ? "GPU " + std::to_string(device_->index) + " (" + device_->name + ")" : "no GPU") << "\n   "
              << hazard_.title << "\n   variant: " << variant_.title << '\n';
    if (!device_) return no_device();

    VariantResult marker;
    marker.hazard_id = hazard_.id;
    marker.variant_id = variant_.id;
    marker.kind = variant_.kind;
    marker.device_index = device_->index;
    marker.outcome = Outcome::Failed;
    marker.reason = "the case process ended before writing its result (crashed, killed or timed out)";
    record(marker);

    // Shared with every other case of the host; a bandwidth or overlap measurement takes it alone.
    const perf::HostLock host_in_use(perf::HostLock::Mode::Shared, std::chrono::minutes(2));
    const VariantResult r = judge_variant(hazard_, variant_, *device_, settings_);
    record(r);
    print(r);
    switch (standing_of(r.outcome)) {
      case Standing::Good:
        return;
      case Standing::NotRun:
        GTEST_SKIP() << r.reason;
      case Standing::Undecided:
        FAIL() << "INCONCLUSIVE (not a pass): " << r.reason;
      case Standing::Bad:
        FAIL() << upper(to_string(r.outcome)) << ": " << r.reason;
    }
  }

 private:
  void record(const VariantResult& r) const {
    if (!settings_.run_dir.empty()) store_result(settings_.run_dir, r);
  }

  static void print(const VariantResult& r) {
    std::cout << "   outcome: " << upper(to_string(r.outcome)) << " after " << r.trials << " trial(s)";
    if (r.kind == VariantKind::Control || r.kind == VariantKind::Observation)
      std::cout << ", hazard seen in " << r.reproduced;
    if (r.seed) std::cout << ", seed " << *r.seed;
    std::cout << " (" << static_cast<long>(r.duration_ms) << " ms)\n";
    if (!r.reason.empty()) std::cout << "   " << r.reason << '\n';
    if (!r.finding.empty()) std::cout << "   finding: " << r.finding << '\n';
    if (!r.minimal_case.is_null()) std::cout << "   smallest failing case: " << r.minimal_case.dump() << '\n';
    if (r.mutation_check) {
      const MutationCheck& m = *r.mutation_check;
      std::cout << "   mutation check (the same property without the guard's synchronization): "
                << (m.caught ? "CAUGHT, " : "NOT CAUGHT, ") << to_string(m.outcome_without_synchronization) << ": "
                << m.reason << '\n';
    }
  }

  void no_device() {
    const std::string why = "no usable GPU: " + no_device_;
    {
      VariantResult r;
      r.hazard_id = hazard_.id;
      r.variant_id = variant_.id;
      r.kind = variant_.kind;
      r.outcome = Outcome::Skipped;
      r.reason = why;
      record(r);
    }
    if (settings_.require_gpu) FAIL() << "HAZARDLAB_REQUIRE_GPU=1, but there is " << why;
    GTEST_SKIP() << why;
  }

  const Hazard& hazard_;
  const Variant& variant_;
  std::optional<DeviceFingerprint> device_;
  std::string no_device_;
  Settings settings_;
};

}  // namespace
}  // namespace hazardlab

int main(int argc, char** argv) {
  using namespace hazardlab;
  ::testing::InitGoogleTest(&argc, argv);

  CLI::App app{"hazardlab-cases: runs hazardlab's GPU cases as GoogleTest tests"};
  std::string device_arg = "0", hazard_id, variant_id;
  app.add_option("--device", device_arg, "GPU index, or 'none' to report the cases as skipped");
  app.add_option("--hazard", hazard_id, "only this hazard");
  app.add_option("--variant", variant_id, "only this variant");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; any bad argument exits 2, as every bad input does.
    return app.exit(e) == 0 ? 0 : 2;
  }

  Settings settings;
  try {
    settings = Settings::from_environment();
    if (!settings.run_dir.empty()) require_run_folder(settings.run_dir);
  } catch (const SettingsError& e) {
    std::cerr << "hazardlab-cases: bad setting: " << e.what() << '\n';
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "hazardlab-cases: " << e.what() << '\n';
    return 2;
  }
  for (const std::string& w : settings.warnings) std::cerr << "hazardlab-cases: warning: " << w << '\n';

  DeviceChoice choice;
  try {
    choice = choose_device(device_arg);
  } catch (const std::invalid_argument& e) {
    std::cerr << "hazardlab-cases: " << e.what() << '\n';
    return 2;
  }
  const std::optional<DeviceFingerprint> device = choice.device;
  const std::string no_device = choice.no_device_reason;

  int registered = 0;
  for (const Hazard& h : Registry::instance().hazards()) {
    if (!hazard_id.empty() && h.id != hazard_id) continue;
    for (const Variant& v : h.variants) {
      if (!variant_id.empty() && v.id != variant_id) continue;
      ::testing::RegisterTest(test_name(h.id).c_str(), test_name(v.id).c_str(), nullptr, nullptr, __FILE__, __LINE__,
                              [&h, &v, device, no_device, settings]() -> ::testing::Test* {
                                return new VariantCase(h, v, device, no_device, settings);
                              });
      ++registered;
    }
  }
  if (registered == 0) {
    std::cerr << "hazardlab-cases: no case matches --hazard '" << hazard_id << "' --variant '" << variant_id
              << "'; `hazardlab list` shows them\n";
    return 2;
  }

  const int rc = RUN_ALL_TESTS();
  const auto& unit = *::testing::UnitTest::GetInstance();
  if (unit.test_to_run_count() == 0) {
    std::cerr << "hazardlab-cases: the test filter selects none of the " << registered
              << " case(s); `--gtest_list_tests` lists them\n";
    return 2;
  }
  if (rc == 0 && unit.skipped_test_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count()) {
    return kSkipExitCode;
  }
  return rc;
}
