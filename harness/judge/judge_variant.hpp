#pragma once
// The one path from "run this variant on this GPU" to its outcome:
//   1. a requirement the GPU does not meet: skipped, with the reason;
//   2. the GPU made current and the harness's kernels loaded (see cuda/kernel_loading.hpp);
//   3. the variant's trials planned once (trial_plan.hpp: usable gates, largest transfer), then
//      the judge of the variant's kind, each step handed that plan:
//        control      check_positive_control  (positive_control.hpp)
//        guard        check_property, then the mutation check: the same property with the
//                     trial's Guard switched off (hold/guard.hpp) must fail, or the guard proves nothing
//        rule         check_property; the finding says how the calls behaved
//        observation  observe (observation_sweep.hpp), or the variant's own measurement
//   4. a CUDA error or exception becomes Failed, naming the call (sticky errors say so);
//   5. the result is stamped with the variant, the GPU and the time it took.
#include "cuda/device.hpp"
#include "hazardlab/result.hpp"
#include "hazard/hazard.hpp"
#include "settings/settings.hpp"

namespace hazardlab {

VariantResult judge_variant(const Hazard& hazard, const Variant& variant, const DeviceFingerprint& device,
                            const Settings& settings);

}  // namespace hazardlab
