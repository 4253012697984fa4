#pragma once
// What one variant's run on one GPU produced. Cases write it as JSON into the run folder; the
// report reads it back.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hazardlab/observations.hpp"
#include "hazardlab/outcome.hpp"
#include "hazardlab/variant_kind.hpp"

namespace hazardlab {

// A guard that held, run again with its synchronization removed: the suite must then see wrong
// data, or the guard's property proves nothing.
struct MutationCheck {
  bool caught = false;
  Outcome outcome_without_synchronization = Outcome::Failed;
  std::string reason;
  nlohmann::json failing_case;  // the unguarded run's first failing case (not shrunk), null if none
};

struct VariantResult {
  std::string hazard_id;
  std::string variant_id;
  VariantKind kind = VariantKind::Control;
  int device_index = -1;  // -1: no device
  std::string device_uuid;
  Outcome outcome = Outcome::Failed;
  std::string reason;                 // why, for every outcome but Passed and Reproduced; the finding for Observed
  int trials = 0;                     // gated trials (control, observation) or generated cases (guard, rule)
  int reproduced = 0;                 // trials in which the hazard showed
  int inconclusive = 0;               // trials that could not decide
  std::optional<std::uint64_t> seed;  // replays the property run (HAZARDLAB_SEED)
  nlohmann::json minimal_case;        // the shrunk failing case, null unless a property failed
  std::string finding;                // what was measured, in one sentence; empty if nothing to say
  std::optional<MutationCheck> mutation_check;             // guards that held, unless mutation checks are off
  Observations observations;           // further measured facts (observations.hpp)
  double duration_ms = 0;
};

// Why a result cannot be true as written ("" when it can): a passing outcome after no trials, a
// control reproduced in fewer trials than it ran, more hazards seen than trials. The report turns
// such a result into a failure that says so, instead of counting it.
std::string impossible_content(const VariantResult& r);

// JSON keeps the typed findings inside "observations" ("finding", "mutation_check"), where
// reports of schema version 1 had them.
void to_json(nlohmann::json& j, const VariantResult& r);
void from_json(const nlohmann::json& j, VariantResult& r);  // throws nlohmann::json::exception

}  // namespace hazardlab
