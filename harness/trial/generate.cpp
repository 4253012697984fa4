#include "trial/generate.hpp"

#include <algorithm>

namespace hazardlab {
namespace {

// Sizes from 1 byte to `max`: the page and 64 KiB edges (where copy paths change) often, the
// rest spread evenly over powers of two so that every magnitude is covered.
rc::Gen<std::size_t> gen_bytes(std::size_t min, std::size_t max) {
  std::vector<std::size_t> edges{1, 4095, 4096, 4097, 65535, 65536, 65537, max};
  edges.erase(std::remove_if(edges.begin(), edges.end(), [min, max](std::size_t b) { return b < min || b > max; }),
              edges.end());
  if (edges.empty()) edges.push_back(max);
  int bottom = 0, top = 0;
  while ((std::size_t{2} << bottom) <= min) ++bottom;
  while ((std::size_t{2} << top) <= max) ++top;
  auto magnitude = rc::gen::mapcat(rc::gen::inRange(bottom, top + 1), [min, max](int e) {
    const std::size_t lo = std::max(min, std::size_t{1} << e);
    const std::size_t hi = std::min(max, (std::size_t{2} << e) - 1);
    return rc::gen::inRange<std::size_t>(lo, hi + 1);
  });
  return rc::gen::weightedOneOf<std::size_t>({{1, rc::gen::elementOf(edges)}, {3, magnitude}});
}

rc::Gen<PatternSpec> gen_pattern() {
  auto spec = rc::gen::apply(
      [](PatternFamily family, std::uint64_t seed, int mutated, int sentinel) {
        return PatternSpec{family, seed, static_cast<std::uint8_t>(mutated), static_cast<std::uint8_t>(sentinel)};
      },
      rc::gen::element(PatternFamily::Counter, PatternFamily::Random, PatternFamily::Alternating,
                       PatternFamily::Constant),
      rc::gen::arbitrary<std::uint64_t>(), rc::gen::inRange(1, 256), rc::gen::inRange(1, 256));
  return rc::gen::suchThat(spec, [](const PatternSpec& p) { return p.valid(); });
}

// One value per declared parameter, in declaration order.
rc::Gen<std::vector<std::uint32_t>> gen_parameter_values(const std::vector<Parameter>& parameters) {
  return rc::gen::exec([parameters] {
    std::vector<std::uint32_t> values;
    for (const Parameter& p : parameters) values.push_back(*rc::gen::inRange<std::uint32_t>(p.min, p.max + 1));
    return values;
  });
}

}  // namespace

rc::Gen<TrialCase> gen_case(const CaseSpace& space, const std::vector<GateKind>& gates, std::size_t max_bytes) {
  return rc::gen::apply(
      [parameters = space.parameters](std::size_t bytes, std::size_t offset, PatternSpec pattern, HostMemoryKind host,
                                      StreamKind stream, GateKind gate, std::uint32_t gate_delay,
                                      std::uint32_t device_delay, const std::vector<std::uint32_t>& values) {
        TrialCase c{bytes, offset, pattern, host, stream, gate, gate_delay, device_delay, {}};
        for (std::size_t i = 0; i < parameters.size(); ++i) c.params.set(parameters[i], values[i]);
        return c;
      },
      gen_bytes(std::min(space.min_bytes, max_bytes), max_bytes), rc::gen::inRange<std::size_t>(0, 4096), gen_pattern(),
      rc::gen::elementOf(space.host_kinds), rc::gen::elementOf(space.streams), rc::gen::elementOf(gates),
      rc::gen::inRange<std::uint32_t>(0, space.max_gate_delay_us + 1),
      rc::gen::inRange<std::uint32_t>(0, space.max_device_delay_us + 1), gen_parameter_values(space.parameters));
}

}  // namespace hazardlab
