#pragma once
// Scenario: the host rewrites the source of a host-to-device copy after the call returned.
// The trial fills the source (A) and the destination (sentinel C), closes a gate on the stream,
// issues the copy, runs the fence under test, rewrites the source (B), opens the gate and looks
// at what reached the device. With no fence the rewrite lands while the copy is still held back,
// so the device gets B every time; with a correct fence it never can.
#include "scenario/copy_call.hpp"
#include "scenario/scenario.hpp"

namespace hazardlab {

TrialObservation mutate_source_after_h2d(Rig& rig, const TrialCase& c, FenceKind fence, CopyCall call,
                                         const TrialSettings& settings);
Scenario mutate_source_after_h2d(CopyCall call);

}  // namespace hazardlab
