#pragma once
// A hazard is one way to misuse asynchronous transfers, explained: what is unsafe,
// which documented rule makes it so, and the variants that show it (the positive control) and
// fix it (the guards). Each file in hazards/ builds one Hazard and registers it (registry.hpp).
#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/device.hpp"
#include "hazardlab/catalog.hpp"
#include "hazardlab/result.hpp"
#include "trial/case_space.hpp"
#include "trial/trial.hpp"

namespace hazardlab {

// A property of the device the hazard needs; `unmet` returns why a device falls short, or "".
struct Requirement {
  std::string what;
  std::function<std::string(const DeviceFingerprint&)> unmet;
};

// An observation that is not a series of trials (a timing of host reads, say): it measures and
// reports directly. It never fails a verdict unless it cannot run.
using Measurement = std::function<VariantResult(const DeviceFingerprint&, const Settings&)>;

// One variant: a trial over a case space, and what kind of claim it makes. The kind decides how
// the trial is judged (judge/judge_variant.hpp); the variant itself holds no judging code.
struct Variant {
  std::string id;
  VariantKind kind;
  std::string title;
  CaseSpace space;
  TrialFn trial;
  Measurement measure;  // instead of `trial`: a variant that judges its own run (an observation or a rule)
  // Extra ctest labels beyond gpu, the GPU, hazard:<id> and kind:<kind> (e.g. "sweep"), so that a
  // family of cases that spans hazards can be selected with -L.
  std::vector<std::string> labels{};
};

// The label of a variant that uses two GPUs: its own and a peer.
inline constexpr std::string_view kTwoGpuLabel = "peer";

// Of a variant's labels, or of a planned test's (which carry its variant's).
inline bool uses_two_gpus(const std::vector<std::string>& labels) {
  return std::find(labels.begin(), labels.end(), kTwoGpuLabel) != labels.end();
}
inline bool uses_two_gpus(const Variant& v) { return uses_two_gpus(v.labels); }

struct Hazard {
  std::string id;
  std::string title;
  std::vector<Citation> rules;
  std::vector<Requirement> requirements;
  std::string explanation;
  std::vector<Variant> variants;
  // PyTorch code that makes the same mistake, and its fix, where there is one ("" where not).
  std::string pytorch{};  // (braced: a hazard without one may leave it out of its initializer)
  // Why every variant is an observation, where that is deliberate (a tester whose model is still
  // being checked against GPUs); "" for a hazard, which must check something.
  std::string unjudged_because{};

  const Variant* find_variant(std::string_view variant_id) const;
  // "" when `device` meets every requirement, else the first unmet reason.
  std::string unmet_requirement(const DeviceFingerprint& device) const;
};

// Common device requirements.
Requirement requires_can_map_host_memory();
Requirement requires_host_register();
// concurrentManagedAccess = 1; `without_it` says what happens on a device without it.
Requirement requires_concurrent_managed_access(std::string without_it);

}  // namespace hazardlab
