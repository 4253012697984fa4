#include "judge/judge_variant.hpp"

#include <chrono>

#include "cuda/check.hpp"
#include "cuda/kernel_loading.hpp"
#include "judge/observation_sweep.hpp"
#include "judge/positive_control.hpp"
#include "judge/property.hpp"

namespace hazardlab {
namespace {

// Reruns a guard that held with its synchronization removed: the suite must then see wrong data,
// or the guard's property proves nothing. The verdict is recorded with the guard's result. It
// stops at the first wrong result: shrinking it would only make the report's example smaller, and
// cost more than the check itself.
VariantResult with_mutation_check(const RunContext& ctx, const TrialPlan& plan, Rig& rig, VariantResult guarded) {
  Settings sabotaged = ctx.settings;
  sabotaged.sabotage_guards = true;  // every Guard the trial states is switched off
  const VariantResult without = check_property({ctx.device, sabotaged}, plan, rig, OnFailure::StopAtFirst).result;
  const bool caught = without.outcome == Outcome::Incorrect;
  guarded.mutation_check = MutationCheck{caught, without.outcome, without.reason, without.minimal_case};
  if (!caught) {
    guarded.outcome = Outcome::Inconclusive;
    guarded.reason = "the guard held, but so did the same property with its synchronization removed (" +
                     std::string(to_string(without.outcome)) +
                     "), so it cannot tell a guarded run from an unguarded one";
  }
  return guarded;
}

VariantResult judge_by_kind(const RunContext& ctx, const Variant& variant) {
  // A variant that measures and judges itself (the race-window sweeps, the conformance programs).
  if (variant.measure) return variant.measure(ctx.device, ctx.settings);
  const TrialPlan plan = TrialPlan::of(ctx, variant.space, variant.trial);  // once, for every step below
  switch (variant.kind) {
    case VariantKind::Control:
      return check_positive_control(ctx, plan);
    case VariantKind::Guard: {
      Rig rig(plan.largest_bytes, ctx.device);
      VariantResult guarded = check_property(ctx, plan, rig, OnFailure::Shrink).result;
      const bool mutation_check_applies =
          guarded.outcome == Outcome::Passed && ctx.settings.mutation_check && !ctx.settings.sabotage_guards;
      return mutation_check_applies ? with_mutation_check(ctx, plan, rig, std::move(guarded)) : guarded;
    }
    case VariantKind::Rule: {
      PropertyVerdict verdict = check_property(ctx, plan);
      // For a rule, how the calls behaved is part of what it establishes.
      verdict.result.finding = verdict.blocking.summary();
      return verdict.result;
    }
    case VariantKind::Observation:
      break;
  }
  return observe(ctx, plan);
}

}  // namespace

VariantResult judge_variant(const Hazard& hazard, const Variant& variant, const DeviceFingerprint& device,
                            const Settings& settings) {
  const auto start = std::chrono::steady_clock::now();
  VariantResult result;
  if (const std::string unmet = hazard.unmet_requirement(device); !unmet.empty()) {
    result.outcome = Outcome::Skipped;
    result.reason = "not applicable on this GPU: " + unmet;
  } else {
    try {
      DeviceScope scope(device.index);
      load_harness_kernels();
      result = judge_by_kind(RunContext{device, settings}, variant);
    } catch (const CudaError& e) {
      result.outcome = Outcome::Failed;
      result.reason = e.what();
      if (e.sticky()) result.reason += " (sticky: the CUDA context is unusable for the rest of this process)";
    } catch (const std::exception& e) {
      result.outcome = Outcome::Failed;
      result.reason = std::string("error: ") + e.what();
    }
  }
  result.hazard_id = hazard.id;
  result.variant_id = variant.id;
  result.kind = variant.kind;
  result.device_index = device.index;
  result.device_uuid = device.uuid;
  result.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace hazardlab
