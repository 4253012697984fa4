#include "plan/profile.hpp"

#include "hazardlab/perf_store.hpp"

namespace hazardlab {

std::vector<ProfileCase> profile_cases(const std::string& profile) {
  std::vector<ProfileCase> cases;
  if (profile == "soak") return cases;
  for (const Hazard& h : Registry::instance().hazards()) {
    const Variant* first_guard = nullptr;
    const Variant* first_rule = nullptr;
    for (const Variant& v : h.variants) {
      if (v.kind == VariantKind::Guard && !first_guard) first_guard = &v;
      if (v.kind == VariantKind::Rule && !first_rule) first_rule = &v;
    }
    const Variant* judged = first_guard ? first_guard : first_rule;
    for (const Variant& v : h.variants) {
      const bool chosen = profile != "health" || v.kind == VariantKind::Control || &v == judged;
      if (chosen) cases.push_back({&h, &v});
    }
  }
  return cases;
}

std::vector<MeasurementGroup> profile_perf_parts(const std::string& profile) {
  if (profile == "health") return {MeasurementGroup::Bandwidth, MeasurementGroup::Integrity};
  if (profile == "soak") return {MeasurementGroup::Soak};
  return std::vector<MeasurementGroup>(std::begin(kPerfParts), std::end(kPerfParts));
}

}  // namespace hazardlab
