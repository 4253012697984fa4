#pragma once
// Every hazard registers itself before main() runs; the registry is the catalogue the cases, the
// tools and the reports read, and it checks that each entry is complete.
#include <string>
#include <string_view>
#include <vector>

#include "hazardlab/catalog.hpp"
#include "hazard/hazard.hpp"

namespace hazardlab {

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

}  // namespace hazardlab

#define HAZARDLAB_CONCAT_INNER(a, b) a##b
#define HAZARDLAB_CONCAT(a, b) HAZARDLAB_CONCAT_INNER(a, b)
// Registers the Hazard returned by `factory` before main() runs.
#define HAZARDLAB_REGISTER_HAZARD(factory)                                                                          \
  namespace {                                                                                                       \
  const bool HAZARDLAB_CONCAT(hazardlab_registered_, __LINE__) = (::hazardlab::Registry::instance().add(factory()), \
                                                                  true);                                            \
  }
