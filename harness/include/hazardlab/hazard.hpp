#pragma once
// A hazard is one way to misuse asynchronous transfers, written as a lesson: what is unsafe,
// which documented rule makes it so, and the variants that show it (the positive control) and
// fix it (the guards). Each file in hazards/ builds one Hazard and registers it.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hazardlab/catalog.hpp"
#include "hazardlab/device.hpp"
#include "hazardlab/result.hpp"
#include "hazardlab/settings.hpp"

namespace hazardlab {

// A property of the device the hazard needs; `unmet` returns why a device falls short, or "".
struct Requirement {
  std::string what;
  std::function<std::string(const DeviceFingerprint&)> unmet;
};

struct RunContext {
  const DeviceFingerprint& device;
  const Settings& settings;
};

struct Variant {
  std::string id;
  VariantKind kind;
  std::string title;
  std::function<VariantResult(const RunContext&)> run;
};

struct Hazard {
  std::string id;
  std::string title;
  std::vector<Citation> rules;
  std::vector<Requirement> requirements;
  std::string explanation;
  std::vector<Variant> variants;

  const Variant* find_variant(std::string_view variant_id) const;
  // "" when `device` meets every requirement, else the first unmet reason.
  std::string unmet_requirement(const DeviceFingerprint& device) const;
};

class Registry {
 public:
  static Registry& instance();
  void add(Hazard hazard);
  const std::vector<Hazard>& hazards() const noexcept { return hazards_; }
  const Hazard* find(std::string_view hazard_id) const;
  // Problems with the registered hazards (duplicate ids, missing texts, no variants...).
  std::vector<std::string> consistency_problems() const;
  // The registered hazards as plain data, for the run folder and the reports.
  Catalog catalog() const;

 private:
  std::vector<Hazard> hazards_;
};

// Common device requirements.
Requirement requires_can_map_host_memory();
Requirement requires_host_register();

// Runs one variant on one device: checks requirements, makes the device current, turns a CUDA
// error into a Failed result naming the call, and times the run.
VariantResult run_variant(const Hazard& hazard, const Variant& variant, const DeviceFingerprint& device,
                          const Settings& settings);

}  // namespace hazardlab

#define HAZARDLAB_CONCAT_INNER(a, b) a##b
#define HAZARDLAB_CONCAT(a, b) HAZARDLAB_CONCAT_INNER(a, b)
// Registers the Hazard returned by `factory` before main() runs.
#define HAZARDLAB_REGISTER_HAZARD(factory)                                                                          \
  namespace {                                                                                                       \
  const bool HAZARDLAB_CONCAT(hazardlab_registered_, __LINE__) = (::hazardlab::Registry::instance().add(factory()), \
                                                                  true);                                            \
  }
