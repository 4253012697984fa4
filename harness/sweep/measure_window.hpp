#pragma once
// The race window of a hazard: an observation (a variant labelled `sweep`, built by
// lesson.hpp's race_window()) that measures, with no gate, how often the hazard shows as a function of the delay queued
// ahead of the racing work, the copy size and what the host does, and replays the PyTorch tutorial's own demonstration
// as a point beside the curves. HAZARDLAB_SWEEP_PROFILE=full measures more delays, sizes and trials.
#include <optional>
#include <string>
#include <vector>

#include "hazardlab/device_fingerprint.hpp"
#include "hazardlab/race_window.hpp"
#include "hazardlab/result.hpp"
#include "settings/settings.hpp"
#include "sweep/window_trial.hpp"

namespace hazardlab {

// The tutorial's demonstration of this hazard: its size, what its host does, and its _sleep.
struct TutorialDemoSpec {
  std::string code;
  std::size_t bytes = 0;
  HostAction action = HostAction::None;
  long long sleep_cycles_after = 0;  // torch.cuda._sleep(cycles) queued after the copy; 0 for none
  std::string elsewhere;             // what its own PyTorch code showed on other GPUs
  std::string note;                  // why the demo does what it does (the report's sentence)
};

struct RaceWindowSpec {
  RaceShape shape;
  std::vector<HostAction> actions;  // the host's moves to sweep; {None} for a race between streams
  std::optional<TutorialDemoSpec> demo;
};

// What the sweep measures under a profile. `full` widens it; a sanitizer narrows it (no demo).
struct WindowPlan {
  std::vector<double> delays_us;
  std::vector<std::size_t> sizes;
  int trials = 0;
  bool demos = true;
};
WindowPlan window_plan(const Settings& settings);

// Runs the sweep on the current device: an Observed result whose observations.race_window
// holds the curves, the demo and the headline (hazardlab/race_window.hpp).
VariantResult measure_race_window(const RaceWindowSpec& spec, const DeviceFingerprint& device,
                                  const Settings& settings);

}  // namespace hazardlab
