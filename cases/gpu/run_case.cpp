// Runs GPU cases as GoogleTest tests, one variant on one GPU per process when ctest runs it, so
// that a sticky CUDA error in one case cannot fail or hang another.
//
//   hazardlab-cases --device 0 --hazard h2d-pinned-mutate --variant unsafe-mutate-after-call
//   hazardlab-cases --device 0 --hazard h2d-pinned-mutate          (every variant of a hazard)
//
// Exit status: 0 passed, 1 failed, 2 bad arguments, 77 skipped (no GPU, not applicable).
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <optional>

#include "hazardlab/hazard.hpp"
#include "hazardlab/result_store.hpp"

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
    marker.kind = std::string(to_string(variant_.kind));
    marker.device_index = device_->index;
    marker.outcome = Outcome::Failed;
    marker.reason = "the case process ended before writing its result (crashed, killed or timed out)";
    record(marker);

    const VariantResult r = run_variant(hazard_, variant_, *device_, settings_);
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
    if (!settings_.results_dir.empty()) store_result(settings_.results_dir, r);
  }

  static void print(const VariantResult& r) {
    std::cout << "   outcome: " << upper(to_string(r.outcome)) << " after " << r.trials << " trial(s)";
    if (r.kind == "control" || r.kind == "observation") std::cout << ", hazard seen in " << r.reproduced;
    if (r.seed) std::cout << ", seed " << *r.seed;
    std::cout << " (" << static_cast<long>(r.duration_ms) << " ms)\n";
    if (!r.reason.empty()) std::cout << "   " << r.reason << '\n';
    if (r.observations.contains("finding"))
      std::cout << "   finding: " << r.observations["finding"].get<std::string>() << '\n';
    if (!r.minimal_case.is_null()) std::cout << "   smallest failing case: " << r.minimal_case.dump() << '\n';
    if (r.observations.contains("mutation_check")) {
      const auto& m = r.observations["mutation_check"];
      std::cout << "   mutation check (the same property without the guard's synchronization): "
                << (m["caught"].get<bool>() ? "CAUGHT, " : "NOT CAUGHT, ")
                << m["outcome_without_synchronization"].get<std::string>() << ": " << m["reason"].get<std::string>()
                << '\n';
    }
  }

  void no_device() {
    const std::string why = "no usable GPU: " + no_device_;
    {
      VariantResult r;
      r.hazard_id = hazard_.id;
      r.variant_id = variant_.id;
      r.kind = std::string(to_string(variant_.kind));
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
  CLI11_PARSE(app, argc, argv);

  Settings settings;
  try {
    settings = Settings::from_environment();
  } catch (const SettingsError& e) {
    std::cerr << "hazardlab-cases: bad setting: " << e.what() << '\n';
    return 2;
  }

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
  if (rc == 0 && unit.skipped_test_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count()) {
    return kSkipExitCode;
  }
  return rc;
}
