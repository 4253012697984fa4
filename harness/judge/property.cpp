#include "judge/property.hpp"

// rapidcheck's public entry point, rc::check, reports through its own printing and returns only
// a bool, with its parameters read from the RC_PARAMS environment variable. A judge needs more:
// the seed chosen by HAZARDLAB_SEED, the number of cases from HAZARDLAB_PROPERTY_CASES, and the
// structured result (how many cases passed, why it failed, whether it gave up) to turn into an
// outcome. rapidcheck's detail API (checkTestable with TestParams, TestResult) gives exactly that;
// this file is the only one that uses it, so a rapidcheck upgrade that changes it touches one file.
#include <rapidcheck.h>

#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include "cuda/check.hpp"
#include "trial/generate.hpp"

namespace hazardlab {
namespace {

std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

PropertyVerdict check_property(const RunContext& ctx, const TrialPlan& plan, OnFailure on_failure) {
  Rig rig(plan.largest_bytes, ctx.device);
  return check_property(ctx, plan, rig, on_failure);
}

PropertyVerdict check_property(const RunContext& ctx, const TrialPlan& plan, Rig& rig, OnFailure on_failure) {
  const Settings& settings = ctx.settings;
  BlockingProfile blocking;

  struct Failure {
    TrialCase c;
    std::string what;
  };
  std::optional<Failure> last_failure;  // the last failing run is the shrunk minimal case
  std::string api_error, inconclusive;
  bool poisoned = false;
  int runs = 0;

  const auto cases = gen_case(plan.space, plan.gates, rig.max_bytes());
  const auto property = [&] {
    const TrialCase c = *cases;
    if (poisoned) RC_FAIL("not run: an earlier case left the CUDA context unusable");
    ++runs;
    TrialObservation obs;
    try {
      obs = plan.trial(rig, c, settings);
    } catch (const CudaError& e) {
      api_error = e.what();
      poisoned = e.sticky();
      last_failure = Failure{c, e.what()};
      RC_FAIL(e.what());
    } catch (const std::exception& e) {
      api_error = std::string("error: ") + e.what();
      last_failure = Failure{c, e.what()};
      RC_FAIL(e.what());
    }
    blocking.add(c.bytes, obs.call_blocked, obs.hazard_visible);
    if (obs.gate_timed_out) {
      inconclusive = "a gate timed out: " + c.describe();
      poisoned = true;
      last_failure = Failure{c, obs.describe()};
      RC_FAIL("gate timed out");
    }
    if (!obs.data_correct) {
      last_failure = Failure{c, obs.describe()};
      RC_FAIL(obs.describe());
    }
  };

  rc::detail::TestParams params;
  params.seed = settings.seed.value_or(fresh_seed());
  params.maxSuccess = settings.property_cases;
  params.disableShrinking = on_failure == OnFailure::StopAtFirst;
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = "property";
  const rc::detail::TestResult result = rc::detail::checkTestable(property, metadata, params);

  VariantResult r;
  r.seed = params.seed;
  r.observations.blocking = blocking.tally();
  r.observations.property_runs_including_shrinking = runs;
  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (result.match(success)) {
    r.outcome = Outcome::Passed;
    r.trials = success.numSuccess;
  } else if (result.match(failure)) {
    std::cerr << "rapidcheck: ";
    rc::detail::printResultMessage(result, std::cerr);
    std::cerr << '\n';
    r.trials = failure.numSuccess + 1;
    if (last_failure) r.minimal_case = last_failure->c;
    std::ostringstream why;
    if (!inconclusive.empty()) {
      r.outcome = Outcome::Inconclusive;
      why << inconclusive;
    } else if (!api_error.empty()) {
      r.outcome = Outcome::Failed;
      why << api_error;
    } else {
      r.outcome = Outcome::Incorrect;
      why << "wrong data after " << failure.numSuccess << " passing cases; "
          << (on_failure == OnFailure::Shrink ? "smallest failing case: " : "first failing case (not shrunk): ")
          << (last_failure ? last_failure->c.describe() + " -> " + last_failure->what : failure.description);
    }
    why << " (replay with HAZARDLAB_SEED=" << params.seed << ")";
    r.reason = why.str();
  } else if (result.match(gave_up)) {
    r.outcome = Outcome::Inconclusive;
    r.trials = gave_up.numSuccess;
    r.reason = "rapidcheck gave up: " + gave_up.description;
  } else if (result.match(error)) {
    r.outcome = Outcome::Failed;
    r.reason = "rapidcheck could not run the property: " + error.description;
  }
  return {std::move(r), blocking};
}

}  // namespace hazardlab
