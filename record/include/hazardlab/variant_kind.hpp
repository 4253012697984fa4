#pragma once
// The four roles a variant plays in a hazard's lesson, and their one spelling in JSON.
#include <optional>
#include <string_view>

namespace hazardlab {

enum class VariantKind {
  Control,      // the unsafe pattern: a positive control that must show the hazard in every trial
  Guard,        // the unsafe pattern plus a synchronization: must be correct in every generated case
  Rule,         // a pattern the documentation promises is safe without a guard: checked like a guard
  Observation,  // a behaviour the documentation leaves open: measured and reported, never judged
};

std::string_view to_string(VariantKind kind) noexcept;
std::optional<VariantKind> variant_kind_from_string(std::string_view name) noexcept;

}  // namespace hazardlab
