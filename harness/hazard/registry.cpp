#include "hazard/registry.hpp"

#include <algorithm>
#include <regex>
#include <set>

namespace hazardlab {

Registry& Registry::instance() {
  static Registry registry;
  return registry;
}

void Registry::add(Hazard hazard) { hazards_.push_back(std::move(hazard)); }

const Hazard* Registry::find(std::string_view hazard_id) const {
  for (const Hazard& h : hazards_) {
    if (h.id == hazard_id) return &h;
  }
  return nullptr;
}

std::vector<std::string> Registry::consistency_problems() const {
  std::vector<std::string> problems;
  const std::regex slug("[a-z0-9]+(-[a-z0-9]+)*");
  std::set<std::string> ids;
  for (const Hazard& h : hazards_) {
    const std::string where = "hazard '" + h.id + "'";
    if (!std::regex_match(h.id, slug)) problems.push_back(where + ": id is not lower-case-dashed");
    if (!ids.insert(h.id).second) problems.push_back(where + ": id registered twice");
    if (h.title.empty()) problems.push_back(where + ": no title");
    if (h.explanation.size() < 80) problems.push_back(where + ": explanation is missing or too short to teach");
    if (h.rules.empty()) problems.push_back(where + ": cites no documented rule");
    for (const Citation& c : h.rules) {
      if (c.document.empty() || c.section.empty() || c.says.empty()) {
        problems.push_back(where + ": a citation lacks its document, section or summary");
      }
    }
    if (h.variants.empty()) problems.push_back(where + ": no variants");
    std::set<std::string> variant_ids;
    bool judged = false;
    for (const Variant& v : h.variants) {
      if (!std::regex_match(v.id, slug))
        problems.push_back(where + ": variant id '" + v.id + "' is not lower-case-dashed");
      if (!variant_ids.insert(v.id).second) problems.push_back(where + ": variant '" + v.id + "' appears twice");
      if (v.title.empty()) problems.push_back(where + ": variant '" + v.id + "' has no title");
      if (!v.trial == !v.measure) {
        problems.push_back(where + ": variant '" + v.id + "' needs either a trial or a measurement");
      }
      // A guard or control is judged by the harness (mutation check, planned trials); an observation or
      // a rule that runs its own checks (the conformance programs) may judge itself.
      if (v.measure && v.kind != VariantKind::Observation && v.kind != VariantKind::Rule) {
        problems.push_back(where + ": variant '" + v.id +
                           "' measures directly, which only an observation or a rule may do");
      }
      for (const Parameter& p : v.space.parameters) {
        if (!std::regex_match(p.name, slug) || p.meaning.empty() || p.min > p.max) {
          problems.push_back(where + ": variant '" + v.id + "' parameter '" + p.name +
                             "' needs a lower-case-dashed name, a meaning and min <= max");
        }
      }
      judged = judged || v.kind != VariantKind::Observation;
    }
    const bool has_control = std::any_of(h.variants.begin(), h.variants.end(),
                                         [](const Variant& v) { return v.kind == VariantKind::Control; });
    const bool has_guard = std::any_of(h.variants.begin(), h.variants.end(),
                                       [](const Variant& v) { return v.kind == VariantKind::Guard; });
    if (has_control && !has_guard) problems.push_back(where + ": shows a hazard but no guard that fixes it");
    if (!judged && h.unjudged_because.empty())
      problems.push_back(where + ": only observations; nothing is checked (and no unjudged_because says why)");
    for (const Requirement& r : h.requirements) {
      if (r.what.empty() || !r.unmet) problems.push_back(where + ": a requirement lacks its text or check");
    }
  }
  return problems;
}

Catalog Registry::catalog() const {
  Catalog catalog;
  for (const Hazard& h : hazards_) {
    CatalogHazard entry{h.id, h.title, h.rules, {}, h.explanation, {}};
    for (const Requirement& r : h.requirements) entry.requirements.push_back(r.what);
    for (const Variant& v : h.variants) entry.variants.push_back({v.id, v.kind, v.title});
    catalog.hazards.push_back(std::move(entry));
  }
  return catalog;
}

}  // namespace hazardlab
