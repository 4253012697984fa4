// One conformance run on one GPU: generated programs, each executed and compared with the full model
// (a disagreement is a violation, shrunk by rapidcheck) and with every mutant (a disagreement refutes it).
#pragma once

#include "hazard/define.hpp"

namespace hazardlab::conformance {

// HAZARDLAB_CONFORMANCE_PROFILE: "quick" (default, hundreds of programs) or "full" (thousands).
struct Profile {
  std::string name;
  int programs;
};
Profile profile_for(const Settings& settings);  // HAZARDLAB_CONFORMANCE_PROFILE: quick or full

VariantResult run_conformance(const DeviceFingerprint& device, const Settings& settings);

}  // namespace hazardlab::conformance
