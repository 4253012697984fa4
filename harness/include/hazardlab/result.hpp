#pragma once
// What one variant's run on one GPU produced. Cases write it as JSON; the report reads it.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hazardlab/outcome.hpp"

namespace hazardlab {

struct VariantResult {
  std::string hazard_id;
  std::string variant_id;
  std::string kind;       // VariantKind as text
  int device_index = -1;  // -1: no device
  std::string device_uuid;
  Outcome outcome = Outcome::Failed;
  std::string reason;                 // why, for every outcome but Passed and Reproduced; the finding for Observed
  int trials = 0;                     // gated trials (control, observation) or generated cases (guard, rule)
  int reproduced = 0;                 // trials in which the hazard showed
  int inconclusive = 0;               // trials that could not decide
  std::optional<std::uint64_t> seed;  // replays the property run (HAZARDLAB_SEED)
  nlohmann::json minimal_case;        // the shrunk failing case, null unless a property failed
  nlohmann::json observations = nlohmann::json::object();  // measured facts worth reporting
  double duration_ms = 0;
};

void to_json(nlohmann::json& j, const VariantResult& r);
void from_json(const nlohmann::json& j, VariantResult& r);  // throws nlohmann::json::exception

}  // namespace hazardlab
