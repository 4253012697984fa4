#pragma once
// What a file in hazards/ includes: everything a hazard is written with.
//   - the hazard itself: Hazard, Variant, Requirement, citations, HAZARDLAB_REGISTER_HAZARD;
//   - its cases: TrialCase, CaseSpace, Parameter (the hazard's own parameters), Rig, patterns;
//   - the scenarios it can reuse: host-to-device mutate, device-to-host read, cross-stream,
//     another host thread (scenario/); the gate-free race-window sweep (sweep/);
//   - what its own trial may need: streams and events, held streams, fences, device kernels,
//     CUDA error checks.
// How to add a hazard: hazards/README.md.
#include <string>

#include "cuda/check.hpp"
#include "cuda/kernel_copy.hpp"
#include "cuda/stream.hpp"
#include "hold/fence.hpp"
#include "hold/guard.hpp"
#include "hold/held_stream.hpp"
#include "hazard/hazard.hpp"
#include "hazard/registry.hpp"
#include "scenario/cross_stream.hpp"
#include "scenario/device_to_host.hpp"
#include "scenario/host_to_device.hpp"
#include "scenario/other_thread.hpp"
#include "scenario/peer_pair.hpp"
#include "scenario/scenario.hpp"
#include "sweep/measure_window.hpp"
#include "trial/case_space.hpp"
#include "trial/device_patterns.hpp"
#include "trial/trial.hpp"

namespace hazardlab {

// A variant of the given kind that runs `trial` over `space`. The kind says how it is judged:
// a control must show the hazard in every planned trial, a guard or rule must hold for every
// generated case, an observation reports what happened.
Variant make_variant(VariantKind kind, std::string id, std::string title, CaseSpace space, TrialFn trial);

// An observation that measures directly instead of running trials.
Variant measurement(std::string id, std::string title, Measurement measure);

// The race window (an observation labelled `sweep`): the hazard with no gate, a sleep of each
// swept length queued ahead of the racing work, and the tutorial's own demo as a point.
Variant race_window(RaceWindowSpec spec);

// The variant with one more ctest label: kTwoGpuLabel for a variant that uses two GPUs (it holds its
// own GPU's lock only, and comes last on its GPU: harness/plan/run_plan.cpp).
Variant labelled(Variant variant, std::string label);

// The guard that waits with `fence` before the host touches its buffer, named after the fence.
Variant guard(FenceKind fence, const CaseSpace& space, const Scenario& scenario);

// Citations used by several hazards.
Citation runtime_api_sync_behavior(std::string says);

}  // namespace hazardlab
