#include "hazardlab/perf_check.hpp"

namespace hazardlab::perf {

void to_json(nlohmann::json& j, const Check& c) {
  j = {{"id", c.id},
       {"description", c.description},
       {"rationale", c.rationale},
       {"applicable", c.applicable},
       {"not_applicable_reason", c.not_applicable_reason},
       {"passed", c.passed},
       {"measured", c.measured}};
  if (!c.attempts.empty()) j["attempts"] = c.attempts;
  if (!c.untrusted_reason.empty()) j["untrusted_reason"] = c.untrusted_reason;
}

void from_json(const nlohmann::json& j, Check& c) {
  j.at("id").get_to(c.id);
  j.at("description").get_to(c.description);
  c.rationale = j.value("rationale", "");
  j.at("applicable").get_to(c.applicable);
  c.not_applicable_reason = j.value("not_applicable_reason", "");
  j.at("passed").get_to(c.passed);
  c.measured = j.value("measured", "");
  c.attempts = j.value("attempts", std::vector<std::string>{});
  c.untrusted_reason = j.value("untrusted_reason", "");
}

}  // namespace hazardlab::perf
