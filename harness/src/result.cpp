#include "hazardlab/result.hpp"

namespace hazardlab {

void to_json(nlohmann::json& j, const VariantResult& r) {
  j = nlohmann::json{{"hazard", r.hazard_id},
                     {"variant", r.variant_id},
                     {"kind", r.kind},
                     {"device_index", r.device_index},
                     {"device_uuid", r.device_uuid},
                     {"outcome", std::string(to_string(r.outcome))},
                     {"reason", r.reason},
                     {"trials", r.trials},
                     {"reproduced", r.reproduced},
                     {"inconclusive", r.inconclusive},
                     {"seed", r.seed ? nlohmann::json(*r.seed) : nlohmann::json(nullptr)},
                     {"minimal_case", r.minimal_case},
                     {"observations", r.observations},
                     {"duration_ms", r.duration_ms}};
}

void from_json(const nlohmann::json& j, VariantResult& r) {
  j.at("hazard").get_to(r.hazard_id);
  j.at("variant").get_to(r.variant_id);
  j.at("kind").get_to(r.kind);
  j.at("device_index").get_to(r.device_index);
  r.device_uuid = j.value("device_uuid", "");
  const auto outcome = outcome_from_string(j.at("outcome").get<std::string>());
  if (!outcome) {
    throw nlohmann::json::other_error::create(501, "unknown outcome '" + j.at("outcome").get<std::string>() + "'", &j);
  }
  r.outcome = *outcome;
  r.reason = j.value("reason", "");
  r.trials = j.value("trials", 0);
  r.reproduced = j.value("reproduced", 0);
  r.inconclusive = j.value("inconclusive", 0);
  const auto& seed = j.at("seed");
  r.seed = seed.is_null() ? std::nullopt : std::optional<std::uint64_t>(seed.get<std::uint64_t>());
  r.minimal_case = j.value("minimal_case", nlohmann::json(nullptr));
  r.observations = j.value("observations", nlohmann::json::object());
  r.duration_ms = j.value("duration_ms", 0.0);
}

}  // namespace hazardlab
