#include "trial/case_space.hpp"

#include <iterator>

#include "trial/patterns.hpp"

namespace hazardlab {
namespace {

constexpr std::size_t kPlannedSizes[] = {
    1, 4095, 4096, 4097, 65535, 65536, 65537, std::size_t{1} << 20, std::size_t{4} << 20};

}  // namespace

std::vector<GateKind> usable_gates(const CaseSpace& space, const DeviceFingerprint& device, const JudgeSettings& settings) {
  std::vector<GateKind> gates;
  for (GateKind g : space.gates) {
    if (g == GateKind::SpinKernel && !device.can_map_host_memory) continue;
    if (!settings.gates.empty() && std::find(settings.gates.begin(), settings.gates.end(), g) == settings.gates.end()) {
      continue;
    }
    gates.push_back(g);
  }
  if (gates.empty()) gates.push_back(GateKind::HostFunction);
  return gates;
}

TrialCase planned_case(const CaseSpace& space, const std::vector<GateKind>& gates, int trial, std::size_t max_bytes) {
  constexpr int kSizes = static_cast<int>(std::size(kPlannedSizes));
  const int streams = static_cast<int>(space.streams.size());
  TrialCase c;
  c.bytes = std::min(std::max(kPlannedSizes[trial % kSizes], space.min_bytes), max_bytes);
  c.host_offset = static_cast<std::size_t>(trial) * 1237 % 4096;
  c.pattern.family = static_cast<PatternFamily>(trial % 4);
  c.pattern.seed = splitmix64(static_cast<std::uint64_t>(trial));
  c.host_kind = space.host_kinds[trial % space.host_kinds.size()];
  c.stream = space.streams[(trial / kSizes) % streams];
  c.gate = gates[(trial / (kSizes * streams)) % gates.size()];
  std::uint32_t period = 1;
  for (const Parameter& p : space.parameters) {
    c.params.set(p, p.min + static_cast<std::uint32_t>(trial) / period % p.count());
    period *= 3;
  }
  return c;
}

}  // namespace hazardlab
