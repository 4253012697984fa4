// A GPU that does exactly what a model predicts: every allowed value, every drain and call as expected.
// The tests feed it to the checker to see what a model, or a mutant of it, would call a disagreement.
#pragma once

#include "conformance/check/compare.hpp"
#include "conformance/schedule/predict.hpp"

namespace hazardlab::conformance::testing {

inline Observation as_predicted(const Prediction& p) {
  Observation o;
  for (const ReadPrediction& r : p.reads) o.reads[{r.command, r.buffer}] = r.values;
  for (const auto& [k, d] : p.drains) o.finished_at_drain[k] = d.done;
  for (const auto& [k, w] : p.waits) o.blocked[k] = w == Wait::Waits;
  return o;
}

}  // namespace hazardlab::conformance::testing
