#include "hazardlab/catalog.hpp"

namespace hazardlab {

const CatalogHazard* Catalog::find(std::string_view hazard_id) const {
  for (const CatalogHazard& h : hazards) {
    if (h.id == hazard_id) return &h;
  }
  return nullptr;
}

std::size_t Catalog::variant_count() const {
  std::size_t n = 0;
  for (const CatalogHazard& h : hazards) n += h.variants.size();
  return n;
}

void to_json(nlohmann::json& j, const Citation& c) {
  j = {{"document", c.document}, {"section", c.section}, {"says", c.says}};
}
void from_json(const nlohmann::json& j, Citation& c) {
  j.at("document").get_to(c.document);
  j.at("section").get_to(c.section);
  j.at("says").get_to(c.says);
}

void to_json(nlohmann::json& j, const CatalogVariant& v) {
  j = {{"id", v.id}, {"kind", std::string(to_string(v.kind))}, {"title", v.title}};
}
void from_json(const nlohmann::json& j, CatalogVariant& v) {
  j.at("id").get_to(v.id);
  const std::string kind = j.at("kind").get<std::string>();
  const auto k = variant_kind_from_string(kind);
  if (!k) throw nlohmann::json::other_error::create(501, "unknown variant kind '" + kind + "'", &j);
  v.kind = *k;
  j.at("title").get_to(v.title);
}

void to_json(nlohmann::json& j, const CatalogHazard& h) {
  j = {{"id", h.id},
       {"title", h.title},
       {"rules", h.rules},
       {"requirements", h.requirements},
       {"explanation", h.explanation},
       {"variants", h.variants}};
}
void from_json(const nlohmann::json& j, CatalogHazard& h) {
  j.at("id").get_to(h.id);
  j.at("title").get_to(h.title);
  j.at("rules").get_to(h.rules);
  j.at("requirements").get_to(h.requirements);
  j.at("explanation").get_to(h.explanation);
  j.at("variants").get_to(h.variants);
}

void to_json(nlohmann::json& j, const Catalog& c) { j = {{"hazards", c.hazards}}; }
void from_json(const nlohmann::json& j, Catalog& c) { j.at("hazards").get_to(c.hazards); }

}  // namespace hazardlab
