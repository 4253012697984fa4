#pragma once
// Building blocks for the files in hazards/: the trials of the two transfer scenarios and the
// guards that make them safe, named the same way in every hazard, plus what a hazard's own trial
// needs (streams held closed, fences, device kernels, error checks).
#include <functional>

#include "hazardlab/cuda_check.hpp"
#include "hazardlab/device_kernels.hpp"
#include "hazardlab/hazard.hpp"
#include "hazardlab/held_stream.hpp"
#include "hazardlab/runners.hpp"
#include "hazardlab/transfer.hpp"

namespace hazardlab {

// A scenario with the fence still to choose: the unsafe variant takes FenceKind::None.
using Scenario = std::function<TrialFn(FenceKind)>;

Scenario mutate_source_after_h2d(CopyCall call);
Scenario read_destination_after_d2h(CopyCall call);

// The guard that waits with `fence` before the host touches its buffer.
Variant guard(FenceKind fence, const CaseSpace& space, const Scenario& scenario);

// Citations used by several hazards.
Citation runtime_api_sync_behavior(std::string says);

}  // namespace hazardlab
