#include "plan/profile.hpp"

#include "hazardlab/perf_store.hpp"

namespace hazardlab {

std::vector<ProfileCase> profile_cases(RunProfile profile) {
  std::vector<ProfileCase> cases;
  if (profile == RunProfile::Soak) return cases;
  for (const Hazard& h : Registry::instance().hazards()) {
    const Variant* first_guard = nullptr;
    const Variant* first_rule = nullptr;
    for (const Variant& v : h.variants) {
      if (v.kind == VariantKind::Guard && !first_guard) first_guard = &v;
      if (v.kind == VariantKind::Rule && !first_rule) first_rule = &v;
    }
    const Variant* judged = first_guard ? first_guard : first_rule;
    for (const Variant& v : h.variants) {
      const bool chosen = profile != RunProfile::Health || v.kind == VariantKind::Control || &v == judged;
      if (chosen) cases.push_back({&h, &v});
    }
  }
  return cases;
}

std::vector<MeasurementGroup> profile_perf_parts(RunProfile profile) {
  switch (profile) {
    case RunProfile::Health:
      return {MeasurementGroup::Bandwidth, MeasurementGroup::Integrity};
    case RunProfile::Soak:
      return {MeasurementGroup::Soak};
    case RunProfile::Validation:
      break;
  }
  return std::vector<MeasurementGroup>(std::begin(kPerfParts), std::end(kPerfParts));
}

}  // namespace hazardlab
