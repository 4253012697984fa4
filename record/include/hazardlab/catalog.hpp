#pragma once
// The hazard catalogue as plain data: what a report needs to know about every registered hazard
// and variant, with nothing to run. session-start writes it into the run folder, so a report can
// be built from that folder alone, on a machine without CUDA or without this build.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hazardlab/variant_kind.hpp"

namespace hazardlab {

// Where the documentation says so. `says` is our paraphrase, not a quotation.
struct Citation {
  std::string document;
  std::string section;
  std::string says;
};

struct CatalogVariant {
  std::string id;
  VariantKind kind = VariantKind::Control;
  std::string title;
};

struct CatalogHazard {
  std::string id;
  std::string title;
  std::vector<Citation> rules;
  std::vector<std::string> requirements;  // device properties the hazard needs, in words
  std::string explanation;
  std::vector<CatalogVariant> variants;
};

struct Catalog {
  std::vector<CatalogHazard> hazards;
  const CatalogHazard* find(std::string_view hazard_id) const;
  std::size_t variant_count() const;
};

void to_json(nlohmann::json& j, const Citation& c);
void from_json(const nlohmann::json& j, Citation& c);
void to_json(nlohmann::json& j, const CatalogVariant& v);
void from_json(const nlohmann::json& j, CatalogVariant& v);
void to_json(nlohmann::json& j, const CatalogHazard& h);
void from_json(const nlohmann::json& j, CatalogHazard& h);
void to_json(nlohmann::json& j, const Catalog& c);
void from_json(const nlohmann::json& j, Catalog& c);

}  // namespace hazardlab
