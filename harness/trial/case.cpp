#include "trial/case.hpp"

#include <ostream>
#include <sstream>

namespace hazardlab {

HoldPlan TrialCase::hold(const TrialSettings& settings) const {
  return {gate, std::chrono::microseconds(gate_delay_us), std::chrono::microseconds(device_delay_us),
          settings.gate_timeout, settings.call_limit};
}

std::string TrialCase::describe() const {
  std::ostringstream out;
  out << bytes << " B at host offset " << host_offset << ", " << to_string(host_kind) << " host memory, "
      << to_string(stream) << " stream, " << to_string(gate) << " gate, gate delay " << gate_delay_us
      << " us, device delay " << device_delay_us << " us, pattern " << pattern.describe() << params.describe();
  return out.str();
}

void to_json(nlohmann::json& j, const TrialCase& c) {
  j = nlohmann::json{{"bytes", c.bytes},
                     {"host_offset", c.host_offset},
                     {"host_memory", std::string(to_string(c.host_kind))},
                     {"stream", std::string(to_string(c.stream))},
                     {"gate", std::string(to_string(c.gate))},
                     {"gate_delay_us", c.gate_delay_us},
                     {"device_delay_us", c.device_delay_us},
                     {"pattern", c.pattern.describe()}};
  c.params.add_to(j);
}

void showValue(const TrialCase& c, std::ostream& os) { os << c.describe(); }

}  // namespace hazardlab
