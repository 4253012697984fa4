#pragma once
// The race window of a hazard on one GPU: with no gate, only a sleep kernel of a chosen length
// queued ahead of the racing work, how often the hazard shows, as a function of that delay, the
// copy size and what the host does. Measured by the sweep cases (harness/sweep/); kept in a
// result's observations.race_window; read back by the reports. An observation: it never
// decides a verdict.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hazardlab {

// What the host does while the copy may still be pending.
enum class HostAction {
  None,            // nothing: the race is between two streams
  RewriteOneByte,  // writes the first byte of the pinned source
  RewriteAll,      // rewrites the whole pinned source (the tutorial's cpu_tensor.zero_())
  ReadOneByte,     // reads the first byte of the destination
  ReadAll,         // reads the whole destination (the tutorial's cpu_tensor.mean())
};
std::string_view to_string(HostAction action) noexcept;
std::optional<HostAction> host_action_from_string(std::string_view name) noexcept;

// One point of a curve: `trials` trials at one requested delay, size and host action.
struct WindowPoint {
  double delay_us = 0;           // the sleep asked for, ahead of the racing work
  double achieved_delay_us = 0;  // the median sleep measured with CUDA events around it
  std::size_t bytes = 0;
  HostAction action = HostAction::None;
  int trials = 0;
  int reproduced = 0;
  double rate() const { return trials > 0 ? static_cast<double>(reproduced) / trials : 0.0; }
};

// One curve: the points of one size and host action, in increasing delay.
struct WindowSeries {
  std::size_t bytes = 0;
  HostAction action = HostAction::None;
  std::vector<WindowPoint> points;
  std::string label() const;  // "4 MiB, rewrite-all"
  // The smallest measured delay from which every trial of every point reproduced; none if the
  // largest delay did not reproduce in every trial.
  std::optional<double> full_from_us() const;
};

// A demonstration from the PyTorch tutorial, run with its own size, host action and sleep, as a
// point beside the curves.
struct TutorialDemo {
  std::string code;  // the tutorial's lines, shortened
  std::size_t bytes = 0;
  HostAction action = HostAction::None;
  long long sleep_cycles = 0;     // torch.cuda._sleep(cycles), 0 for none
  bool sleep_after_copy = false;  // the tutorial queues its _sleep after the copy, not ahead of it
  double sleep_us_here = 0;       // those cycles, timed on this GPU with CUDA events
  double delay_ahead_us = 0;      // what the demo puts ahead of the copy
  int trials = 0;
  int reproduced = 0;
  std::string elsewhere;  // its reproduction rate with PyTorch on other GPUs, for comparison
  std::string note;       // why the demo does what it does, from what the sweep shows
  double rate() const { return trials > 0 ? static_cast<double>(reproduced) / trials : 0.0; }
};

struct RaceWindow {
  std::string profile;  // quick or full
  int trials_per_point = 0;
  std::vector<WindowSeries> series;
  std::size_t headline_series = 0;  // the curve the headline is read from (the tutorial's size where there is one)
  std::vector<TutorialDemo> demos;

  // The headline: the smallest delay from which the headline curve reproduced in every trial.
  std::optional<double> headline_us() const;
  bool never_reproduced() const;  // 0 of every point's trials
  // One or two sentences: the headline, and what the tutorial's demos did here and why.
  std::string summary() const;
  // The 0 us point of the demo's host action at the largest swept size no larger than the demo's copy.
  const WindowPoint* zero_delay_point(const TutorialDemo& demo) const;
};

void to_json(nlohmann::json& j, const RaceWindow& w);
void from_json(const nlohmann::json& j, RaceWindow& w);  // throws nlohmann::json::exception

// "4 KiB", "64 MiB", "763 MiB"
std::string format_bytes(std::size_t bytes);
// "0 us", "2 us", "1.5 ms"
std::string format_delay_us(double us);

}  // namespace hazardlab
