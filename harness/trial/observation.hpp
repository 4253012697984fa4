#pragma once
// What one trial saw, in the terms every judge reads: did the damage reach the data, is the data
// right, and could the trial tell at all.
#include <optional>
#include <string>

#include "trial/patterns.hpp"

namespace hazardlab {

struct TrialObservation {
  // Host-to-device: the device buffer after everything settled.
  // Device-to-host: the host destination as the host read it right after the fence.
  ByteCensus seen;
  // Device-to-host only: the destination after synchronizing (the copy itself must be whole).
  std::optional<ByteCensus> settled;
  bool call_blocked = false;    // the copy call did not return until the gate was forced open
  bool gate_timed_out = false;  // nobody opened the gate: it opened itself after its timeout
  bool hazard_visible = false;  // the damage reached the data
  bool data_correct = false;    // the host and device agree on the original data
  std::string detail;           // what else the trial measured, in words
  std::string undecided;        // why this trial cannot tell (a positive control counts it inconclusive)
  std::string describe() const;
};

}  // namespace hazardlab
