#pragma once
// Scenario: the host reads the destination of a device-to-host copy after the call returned.
// The device holds A and the host destination the sentinel C; the stream is held closed while
// the host, after the fence under test, takes its copy of the destination. With no fence it
// reads C every time; with a correct fence it reads A, and the destination is whole afterwards.
#include "scenario/copy_call.hpp"
#include "scenario/scenario.hpp"

namespace hazardlab {

TrialObservation read_destination_after_d2h(Rig& rig, const TrialCase& c, FenceKind fence, CopyCall call,
                                            const TrialSettings& settings);
Scenario read_destination_after_d2h(CopyCall call);

}  // namespace hazardlab
