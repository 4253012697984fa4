#include "hazardlab/result.hpp"

namespace hazardlab {
namespace {

Outcome outcome_at(const nlohmann::json& j, const char* key) {
  const std::string name = j.at(key).get<std::string>();
  const auto outcome = outcome_from_string(name);
  if (!outcome) throw nlohmann::json::other_error::create(501, "unknown outcome '" + name + "'", &j);
  return *outcome;
}

}  // namespace

std::string impossible_content(const VariantResult& r) {
  const bool judged_good =
      r.outcome == Outcome::Passed || r.outcome == Outcome::Reproduced || r.outcome == Outcome::Observed;
  if (judged_good && r.trials < 1) {
    return "the result claims '" + std::string(to_string(r.outcome)) + "' after " + std::to_string(r.trials) +
           " trials: nothing was tried, so nothing held";
  }
  if (r.trials < 0 || r.reproduced < 0 || r.inconclusive < 0) return "the result has a negative count";
  if (r.reproduced > r.trials) {
    return "the result says the hazard showed in " + std::to_string(r.reproduced) + " of " + std::to_string(r.trials) +
           " trials";
  }
  if (r.outcome == Outcome::Reproduced && r.reproduced != r.trials) {
    return "the result claims 'reproduced' but the hazard showed in only " + std::to_string(r.reproduced) + " of " +
           std::to_string(r.trials) + " trials";
  }
  if (r.outcome == Outcome::Reproduced && r.kind != VariantKind::Control) {
    return "only a positive control can be 'reproduced', not a " + std::string(to_string(r.kind));
  }
  return {};
}

void to_json(nlohmann::json& j, const VariantResult& r) {
  nlohmann::json observations = nlohmann::json::object();
  write_observations(observations, r.observations);
  if (!r.finding.empty()) observations["finding"] = r.finding;
  if (r.mutation_check) {
    const MutationCheck& m = *r.mutation_check;
    observations["mutation_check"] = {
        {"caught", m.caught},
        {"outcome_without_synchronization", std::string(to_string(m.outcome_without_synchronization))},
        {"reason", m.reason},
        {"failing_case", m.failing_case}};
  }
  j = nlohmann::json{{"hazard", r.hazard_id},
                     {"variant", r.variant_id},
                     {"kind", std::string(to_string(r.kind))},
                     {"device_index", r.device_index},
                     {"device_uuid", r.device_uuid},
                     {"outcome", std::string(to_string(r.outcome))},
                     {"reason", r.reason},
                     {"trials", r.trials},
                     {"reproduced", r.reproduced},
                     {"inconclusive", r.inconclusive},
                     {"seed", r.seed ? nlohmann::json(*r.seed) : nlohmann::json(nullptr)},
                     {"minimal_case", r.minimal_case},
                     {"observations", observations},
                     {"duration_ms", r.duration_ms}};
}

void from_json(const nlohmann::json& j, VariantResult& r) {
  j.at("hazard").get_to(r.hazard_id);
  j.at("variant").get_to(r.variant_id);
  const std::string kind = j.at("kind").get<std::string>();
  const auto k = variant_kind_from_string(kind);
  if (!k) throw nlohmann::json::other_error::create(501, "unknown variant kind '" + kind + "'", &j);
  r.kind = *k;
  j.at("device_index").get_to(r.device_index);
  r.device_uuid = j.value("device_uuid", "");
  r.outcome = outcome_at(j, "outcome");
  r.reason = j.value("reason", "");
  r.trials = j.value("trials", 0);
  r.reproduced = j.value("reproduced", 0);
  r.inconclusive = j.value("inconclusive", 0);
  const auto& seed = j.at("seed");
  r.seed = seed.is_null() ? std::nullopt : std::optional<std::uint64_t>(seed.get<std::uint64_t>());
  r.minimal_case = j.value("minimal_case", nlohmann::json(nullptr));
  const nlohmann::json observations = j.value("observations", nlohmann::json::object());
  r.observations = read_observations(observations, {"finding", "mutation_check"});
  if (const auto it = observations.find("finding"); it != observations.end()) r.finding = it->get<std::string>();
  if (const auto it = observations.find("mutation_check"); it != observations.end()) {
    MutationCheck m;
    it->at("caught").get_to(m.caught);
    m.outcome_without_synchronization = outcome_at(*it, "outcome_without_synchronization");
    m.reason = it->value("reason", "");
    m.failing_case = it->value("failing_case", nlohmann::json(nullptr));
    r.mutation_check = m;
  }
  r.duration_ms = j.value("duration_ms", 0.0);
}

}  // namespace hazardlab
