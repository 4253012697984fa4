#include "trial/observation.hpp"

#include <sstream>

namespace hazardlab {

std::string TrialObservation::describe() const {
  std::ostringstream out;
  if (seen.total() > 0) out << "seen: " << seen.describe();
  if (settled) out << "; after synchronizing: " << settled->describe();
  if (call_blocked) out << "; the copy call blocked until the gate was forced open";
  if (gate_timed_out) out << "; the gate timed out";
  if (!detail.empty()) out << "; " << detail;
  if (!undecided.empty()) out << "; undecided: " << undecided;
  return out.str();
}

}  // namespace hazardlab
