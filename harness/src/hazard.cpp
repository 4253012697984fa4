#include "hazardlab/hazard.hpp"

#include <algorithm>
#include <chrono>
#include <regex>
#include <set>

#include "hazardlab/cuda_check.hpp"
#include "hazardlab/kernels.hpp"

namespace hazardlab {

const Variant* Hazard::find_variant(std::string_view variant_id) const {
  for (const Variant& v : variants) {
    if (v.id == variant_id) return &v;
  }
  return nullptr;
}

std::string Hazard::unmet_requirement(const DeviceFingerprint& device) const {
  for (const Requirement& r : requirements) {
    if (std::string why = r.unmet(device); !why.empty()) return why;
  }
  return {};
}

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
      if (!v.run) problems.push_back(where + ": variant '" + v.id + "' has nothing to run");
      judged = judged || v.kind != VariantKind::Observation;
    }
    const bool has_control = std::any_of(h.variants.begin(), h.variants.end(),
                                         [](const Variant& v) { return v.kind == VariantKind::Control; });
    const bool has_guard = std::any_of(h.variants.begin(), h.variants.end(),
                                       [](const Variant& v) { return v.kind == VariantKind::Guard; });
    if (has_control && !has_guard) problems.push_back(where + ": shows a hazard but no guard that fixes it");
    if (!judged) problems.push_back(where + ": only observations; nothing is checked");
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

Requirement requires_can_map_host_memory() {
  return {"canMapHostMemory = 1", [](const DeviceFingerprint& d) {
            return d.can_map_host_memory ? std::string() : std::string("the device cannot map host memory");
          }};
}

Requirement requires_host_register() {
  return {"hostRegisterSupported = 1", [](const DeviceFingerprint& d) {
            return d.host_register_supported ? std::string()
                                             : std::string("the device does not support cudaHostRegister");
          }};
}

namespace {

// Reruns a guard that held with its synchronization removed: the suite must then see wrong data,
// or the guard's property proves nothing. The verdict is recorded with the guard's result.
void check_mutation(const Variant& variant, const RunContext& ctx, VariantResult& result) {
  Settings sabotaged = ctx.settings;
  sabotaged.sabotage_guards = true;
  const VariantResult without = variant.run(RunContext{ctx.device, sabotaged});
  const bool caught = without.outcome == Outcome::Incorrect;
  result.mutation_check = MutationCheck{caught, without.outcome, without.reason, without.minimal_case};
  if (!caught) {
    result.outcome = Outcome::Inconclusive;
    result.reason = "the guard held, but so did the same property with its synchronization removed (" +
                    std::string(to_string(without.outcome)) +
                    "), so it cannot tell a guarded run from an unguarded one";
  }
}

}  // namespace

VariantResult run_variant(const Hazard& hazard, const Variant& variant, const DeviceFingerprint& device,
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
      const RunContext ctx{device, settings};
      result = variant.run(ctx);
      if (variant.kind == VariantKind::Guard && result.outcome == Outcome::Passed && settings.mutation_check &&
          !settings.sabotage_guards) {
        check_mutation(variant, ctx, result);
      }
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
