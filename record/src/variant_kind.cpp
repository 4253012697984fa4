#include "hazardlab/variant_kind.hpp"

namespace hazardlab {

std::string_view to_string(VariantKind kind) noexcept {
  switch (kind) {
    case VariantKind::Control:
      return "control";
    case VariantKind::Guard:
      return "guard";
    case VariantKind::Rule:
      return "rule";
    case VariantKind::Observation:
      return "observation";
  }
  return "?";
}

std::optional<VariantKind> variant_kind_from_string(std::string_view name) noexcept {
  for (VariantKind k : {VariantKind::Control, VariantKind::Guard, VariantKind::Rule, VariantKind::Observation}) {
    if (to_string(k) == name) return k;
  }
  return std::nullopt;
}

}  // namespace hazardlab
