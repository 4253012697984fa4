// Prints variant results (as cases write them) whose observations hold every part, every optional figure
// set, for the schema test (test_result_schema.py); each must read back as it was written.
#include <iostream>
#include <nlohmann/json.hpp>

#include "hazardlab/result.hpp"

using namespace hazardlab;

namespace {

VariantResult base(const char* variant, VariantKind kind, Outcome outcome) {
  VariantResult r;
  r.hazard_id = "h2d-pinned-mutate";
  r.variant_id = variant;
  r.kind = kind;
  r.device_index = 0;
  r.device_uuid = "GPU-00000000-0000-0000-0000-000000000000";
  r.outcome = outcome;
  r.trials = 100;
  r.seed = 7;
  r.duration_ms = 12.5;
  return r;
}

RaceWindow window() {
  RaceWindow w;
  w.profile = "quick";
  w.trials_per_point = 20;
  WindowSeries s{4u << 20, HostAction::RewriteAll, {}};
  s.points = {{0, 1.5, s.bytes, s.action, 20, 3}, {50, 51.2, s.bytes, s.action, 20, 20}};
  w.series = {s};
  w.demos = {{"cpu_tensor.zero_()", 4u << 20, HostAction::RewriteAll, 1000000, true, 550.0, 0, 20, 20,
              "100 of 100 on an A100", "the sleep is queued after the copy"}};
  return w;
}

ConformanceRun conformance() {
  ConformanceRun c{"quick", 300, 5400, 2100, 340, 12, 0, 4100.5, {}, {}, {}};
  c.mutants = {{"stream-order", "CUDA Runtime API, stream semantics", true, 4, ""},
               {"pageable-d2h", "API synchronization behavior", false, std::nullopt, "no host guarantee to refute"}};
  c.deviations = {{"small-pinned-upload-skips-legacy-sync", "a small upload may run ahead", "a probe", 17}};
  c.small_upload_threshold = {24576, 24576, "", "24 KiB skipped, 24 KiB + 1 obeyed", {{24576, 3, 0, 0}, {24577, 0, 3, 0}}};
  return c;
}

}  // namespace

int main() {
  VariantResult guard = base("stream-synchronize", VariantKind::Guard, Outcome::Passed);
  guard.finding = "the call returned at once in 100 of 100 trials";
  guard.mutation_check = MutationCheck{true, Outcome::Incorrect, "wrong data after 0 passing cases", nullptr};
  guard.observations.blocking = BlockingTally{100, 100, 0, 67108864, 0, 0};
  guard.observations.property_runs_including_shrinking = 100;

  VariantResult control = base("unsafe-mutate-after-call", VariantKind::Control, Outcome::Reproduced);
  control.reproduced = 100;
  control.observations.by_gate = {{"host-function", {50, 50}}, {"spin-kernel", {50, 50}}};

  VariantResult sweep = base("race-window", VariantKind::Observation, Outcome::Observed);
  sweep.observations.per_size = {{4096, 10, 0, 3}};
  sweep.observations.race_window = window();
  sweep.observations.self_check = SweepSelfCheck{false, {"a sleep of 50 us measured 5 us"}};

  VariantResult speed = base("host-read-speed", VariantKind::Observation, Outcome::Observed);
  speed.observations.host_read = HostReadSpeed{0.05, 9.5};

  VariantResult rule = base("generated-programs", VariantKind::Rule, Outcome::Passed);
  rule.observations.conformance = conformance();

  nlohmann::json out = nlohmann::json::array();
  for (const VariantResult& r : {guard, control, sweep, speed, rule}) out.push_back(r);
  std::cout << out.dump(2) << '\n';
  for (const auto& j : out) {
    if (nlohmann::json(j.get<VariantResult>()) != j) {
      std::cerr << "result_example: a result does not read back as it was written: " << j.dump() << '\n';
      return 1;
    }
  }
  return 0;
}
