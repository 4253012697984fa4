#pragma once
// One case of a trial: what every hazard varies (size, where the host side starts, the byte
// pattern, host memory kind, stream, gate and delays) and the values of the hazard's own
// parameters. Positive controls run planned cases; properties run generated ones.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "cuda/host_memory.hpp"
#include "cuda/stream.hpp"
#include "hold/gate.hpp"
#include "hold/held_stream.hpp"
#include "settings/settings.hpp"
#include "trial/parameter.hpp"
#include "trial/pattern_spec.hpp"

namespace hazardlab {

struct TrialCase {
  std::size_t bytes = 1;
  std::size_t host_offset = 0;  // bytes past a page boundary where the host side starts
  PatternSpec pattern;
  HostMemoryKind host_kind = HostMemoryKind::Pinned;
  StreamKind stream = StreamKind::NonBlocking;
  GateKind gate = GateKind::HostFunction;
  std::uint32_t gate_delay_us = 0;    // how long a guard's gate stays closed after the copy is queued
  std::uint32_t device_delay_us = 0;  // a sleep kernel between the gate and the copy
  ParameterValues params;             // the hazard's own parameters

  HoldPlan hold(const TrialSettings& settings) const;  // how a trial of this case holds its stream
  std::string describe() const;
};
void to_json(nlohmann::json& j, const TrialCase& c);
// rapidcheck prints counterexamples with this.
void showValue(const TrialCase& c, std::ostream& os);

}  // namespace hazardlab
