#include "sweep/measure_window.hpp"

#include <algorithm>

#include "sweep/cycle_sleep.hpp"
#include "sweep/self_check.hpp"

namespace hazardlab {
namespace {

constexpr std::size_t KiB = 1024, MiB = 1024 * KiB;

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

WindowPoint measure_point(RaceShape shape, WindowRig& rig, const WindowTrialCase& c, int trials) {
  WindowPoint point{std::chrono::duration<double, std::micro>(c.delay).count(), 0, c.bytes, c.action, trials, 0};
  std::vector<double> achieved;
  for (int t = 0; t < trials; ++t) {
    const WindowTrialOutcome outcome = run_window_trial(shape, rig, c);
    point.reproduced += outcome.reproduced;
    achieved.push_back(outcome.achieved_delay_us);
  }
  point.achieved_delay_us = median(std::move(achieved));
  return point;
}

TutorialDemo replay_demo(RaceShape shape, WindowRig& rig, const TutorialDemoSpec& spec, int trials) {
  TutorialDemo demo;
  demo.code = spec.code;
  demo.bytes = spec.bytes;
  demo.action = spec.action;
  demo.sleep_cycles = spec.sleep_cycles_after;
  demo.sleep_after_copy = spec.sleep_cycles_after > 0;
  demo.elsewhere = spec.elsewhere;
  demo.note = spec.note;
  if (spec.sleep_cycles_after > 0) demo.sleep_us_here = time_cycle_sleep_us(spec.sleep_cycles_after);
  const WindowPoint p = measure_point(
      shape, rig, {spec.bytes, spec.action, std::chrono::nanoseconds{0}, spec.sleep_cycles_after}, trials);
  demo.delay_ahead_us = p.achieved_delay_us;
  demo.trials = p.trials;
  demo.reproduced = p.reproduced;
  return demo;
}

// A sweep whose instrument failed a self-check cannot say how often the race shows: undecided, with why.
VariantResult failed_self_check(const std::vector<std::string>& problems) {
  VariantResult r;
  r.outcome = Outcome::Inconclusive;
  r.reason = "the sweep failed its own self-check, so its curves cannot be trusted: ";
  for (std::size_t i = 0; i < problems.size(); ++i) r.reason += (i ? "; " : "") + problems[i];
  r.observations.self_check = SweepSelfCheck{false, problems};
  return r;
}

}  // namespace

WindowPlan window_plan(const Settings& settings) {
  WindowPlan plan;
  if (settings.sweep_full) {
    plan.delays_us = {0, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000, 2000, 5000};
    plan.sizes = {4 * KiB, 64 * KiB, 4 * MiB, 64 * MiB};
    plan.trials = 100;
  } else {
    plan.delays_us = {0, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
    plan.sizes = {64 * KiB, 4 * MiB};
    plan.trials = 20;
  }
  if (!settings.sanitizer.empty()) {
    // Under compute-sanitizer every trial is slow: a few, small, to see the code run clean.
    plan.delays_us = {0, 100};
    plan.sizes = {64 * KiB};
    plan.trials = 3;
    plan.demos = false;
  }
  return plan;
}

VariantResult measure_race_window(const RaceWindowSpec& spec, const DeviceFingerprint&, const Settings& settings) {
  const WindowPlan plan = window_plan(settings);
  std::size_t largest = *std::max_element(plan.sizes.begin(), plan.sizes.end());
  if (spec.demo && plan.demos) largest = std::max(largest, spec.demo->bytes);
  WindowRig rig(spec.shape, largest);
  // The memory first: a sweep on the wrong kind would measure for minutes a race that cannot happen.
  std::vector<std::string> memory;
  const std::pair<const char*, const HostBuffer*> buffers[] = {{"the sweep's host buffer", &rig.host},
                                                               {"its read-back buffer", &rig.readback}};
  for (const auto& [role, buffer] : buffers) {
    if (auto p = memory_problem(role, kWindowHostMemory, observe_host_memory(buffer->data()))) memory.push_back(*p);
  }
  if (!memory.empty()) return failed_self_check(memory);

  RaceWindow window;
  window.profile = settings.sweep_full ? "full" : "quick";
  window.trials_per_point = plan.trials;
  for (const std::size_t bytes : plan.sizes) {
    for (const HostAction action : spec.actions) {
      WindowSeries series{bytes, action, {}};
      for (const double us : plan.delays_us) {
        const auto delay = std::chrono::nanoseconds(static_cast<long long>(us * 1000));
        series.points.push_back(measure_point(spec.shape, rig, {bytes, action, delay, 0}, plan.trials));
      }
      window.series.push_back(std::move(series));
    }
  }
  // The headline curve: the tutorial's host action at the largest swept size no larger than its copy.
  const HostAction headline_action = spec.demo ? spec.demo->action : spec.actions.front();
  for (std::size_t i = 0; i < window.series.size(); ++i) {
    const WindowSeries& s = window.series[i];
    if (s.action == headline_action && (!spec.demo || s.bytes <= spec.demo->bytes)) window.headline_series = i;
  }
  if (spec.demo && plan.demos) window.demos.push_back(replay_demo(spec.shape, rig, *spec.demo, plan.trials));

  VariantResult r;
  r.outcome = Outcome::Observed;
  for (const WindowSeries& s : window.series) {
    for (const WindowPoint& p : s.points) {
      r.trials += p.trials;
      r.reproduced += p.reproduced;
    }
  }
  r.finding = window.summary();
  r.observations.race_window = window;
  // Timing checks need undisturbed timing: under a sanitizer every call is slowed and moves every race.
  const std::vector<std::string> problems = sweep_self_check(window, {}, settings.sanitizer.empty());
  r.observations.self_check = SweepSelfCheck{problems.empty(), problems};
  if (!problems.empty()) {
    const VariantResult failed = failed_self_check(problems);
    r.outcome = failed.outcome;
    r.reason = failed.reason;
  }
  return r;
}

}  // namespace hazardlab
