#pragma once
// Generated cases for properties: rapidcheck generators over a case space. Only rapidcheck's
// public generator API is used here; shrinking comes with it, so a failing case shrinks towards
// the smallest size, the simplest pattern and each parameter's minimum.
#include <rapidcheck.h>

#include <cstddef>
#include <vector>

#include "trial/case_space.hpp"

namespace hazardlab {

rc::Gen<TrialCase> gen_case(const CaseSpace& space, const std::vector<GateKind>& gates, std::size_t max_bytes);

}  // namespace hazardlab
