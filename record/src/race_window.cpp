#include "hazardlab/race_window.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace hazardlab {
namespace {

constexpr std::array<std::pair<HostAction, std::string_view>, 5> kActionNames{{
    {HostAction::None, "none"},
    {HostAction::RewriteOneByte, "rewrite-one-byte"},
    {HostAction::RewriteAll, "rewrite-all"},
    {HostAction::ReadOneByte, "read-one-byte"},
    {HostAction::ReadAll, "read-all"},
}};

std::string of_trials(int reproduced, int trials) {
  return std::to_string(reproduced) + " of " + std::to_string(trials) + " trials";
}

}  // namespace

std::string_view to_string(HostAction action) noexcept {
  for (const auto& [a, name] : kActionNames)
    if (a == action) return name;
  return "none";
}

std::optional<HostAction> host_action_from_string(std::string_view name) noexcept {
  for (const auto& [a, n] : kActionNames)
    if (n == name) return a;
  return std::nullopt;
}

std::string format_bytes(std::size_t bytes) {
  constexpr std::array<const char*, 4> units{"B", "KiB", "MiB", "GiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < units.size()) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value == std::floor(value) ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

std::string format_delay_us(double us) {
  char text[32];
  if (us >= 1000)
    std::snprintf(text, sizeof text, "%.3g ms", us / 1000);
  else
    std::snprintf(text, sizeof text, "%.3g us", us);
  return text;
}

std::string WindowSeries::label() const {
  return format_bytes(bytes) + (action == HostAction::None ? "" : ", " + std::string(to_string(action)));
}

std::optional<double> WindowSeries::full_from_us() const {
  std::optional<double> from;
  for (auto p = points.rbegin(); p != points.rend(); ++p) {
    if (p->trials == 0 || p->reproduced < p->trials) break;
    from = p->delay_us;
  }
  return from;
}

std::optional<double> RaceWindow::headline_us() const {
  if (headline_series >= series.size()) return std::nullopt;
  return series[headline_series].full_from_us();
}

bool RaceWindow::never_reproduced() const {
  for (const WindowSeries& s : series)
    for (const WindowPoint& p : s.points)
      if (p.reproduced > 0) return false;
  return true;
}

const WindowPoint* RaceWindow::zero_delay_point(const TutorialDemo& demo) const {
  const WindowPoint* best = nullptr;
  for (const WindowSeries& s : series) {
    if (s.action != demo.action || s.points.empty() || s.points.front().delay_us != 0 || s.bytes > demo.bytes) continue;
    if (!best || s.bytes > best->bytes) best = &s.points.front();
  }
  return best;
}

std::string RaceWindow::summary() const {
  std::string text;
  if (headline_series < series.size()) {
    const WindowSeries& main = series[headline_series];
    const double largest = main.points.empty() ? 0 : main.points.back().delay_us;
    if (const auto from = headline_us())
      text = "Reproduced in every trial from " + format_delay_us(*from) + " of delay (" + main.label() + ").";
    else if (never_reproduced())
      text = "Never reproduced without a gate, at any delay up to " + format_delay_us(largest) + ".";
    else
      text =
          "Not reproduced in every trial at any delay up to " + format_delay_us(largest) + " (" + main.label() + ").";
  }
  for (const TutorialDemo& d : demos) {
    text += " The tutorial's demo (" + d.code + ", " + format_bytes(d.bytes) + ") reproduced in " +
            of_trials(d.reproduced, d.trials) + " here" + (d.elsewhere.empty() ? "" : " (" + d.elsewhere + ")") + ".";
    if (d.sleep_after_copy) {
      text += " Its _sleep(" + std::to_string(d.sleep_cycles) + ") lasts " + format_delay_us(d.sleep_us_here) +
              " on this GPU, queued after the copy: it delays nothing ahead of it.";
    }
    if (const WindowPoint* same = zero_delay_point(d)) {
      text += " The same copy with nothing between the call and the host's " + std::string(to_string(d.action)) +
              " (this sweep's 0 us point, " + format_bytes(same->bytes) + ") reproduced in " +
              of_trials(same->reproduced, same->trials) + ".";
    }
    if (!d.note.empty()) text += " " + d.note;
    if (const auto from = headline_us())
      text += " With " + format_delay_us(*from) + " of sleep queued ahead of the copy it shows every time.";
  }
  return text;
}

void to_json(nlohmann::json& j, const RaceWindow& w) {
  j = {{"profile", w.profile}, {"trials_per_point", w.trials_per_point}, {"headline_series", w.headline_series}};
  const auto headline = w.headline_us();
  j["headline_full_reproduction_from_us"] = headline ? nlohmann::json(*headline) : nlohmann::json(nullptr);
  j["summary"] = w.summary();
  j["series"] = nlohmann::json::array();
  for (const WindowSeries& s : w.series) {
    nlohmann::json points = nlohmann::json::array();
    for (const WindowPoint& p : s.points)
      points.push_back({{"delay_us", p.delay_us},
                        {"achieved_delay_us", p.achieved_delay_us},
                        {"trials", p.trials},
                        {"reproduced", p.reproduced}});
    const auto from = s.full_from_us();
    j["series"].push_back({{"bytes", s.bytes},
                           {"host_action", to_string(s.action)},
                           {"full_reproduction_from_us", from ? nlohmann::json(*from) : nlohmann::json(nullptr)},
                           {"points", points}});
  }
  j["tutorial_demos"] = nlohmann::json::array();
  for (const TutorialDemo& d : w.demos)
    j["tutorial_demos"].push_back({{"code", d.code},
                                   {"bytes", d.bytes},
                                   {"host_action", to_string(d.action)},
                                   {"sleep_cycles", d.sleep_cycles},
                                   {"sleep_after_copy", d.sleep_after_copy},
                                   {"sleep_us_here", d.sleep_us_here},
                                   {"delay_ahead_us", d.delay_ahead_us},
                                   {"trials", d.trials},
                                   {"reproduced", d.reproduced},
                                   {"elsewhere", d.elsewhere},
                                   {"note", d.note}});
}

namespace {
HostAction action_at(const nlohmann::json& j) {
  const auto a = host_action_from_string(j.at("host_action").get<std::string>());
  if (!a) throw nlohmann::json::other_error::create(501, "unknown host_action", &j);
  return *a;
}
}  // namespace

void from_json(const nlohmann::json& j, RaceWindow& w) {
  w.profile = j.at("profile").get<std::string>();
  w.trials_per_point = j.at("trials_per_point").get<int>();
  w.headline_series = j.at("headline_series").get<std::size_t>();
  w.series.clear();
  for (const auto& s : j.at("series")) {
    WindowSeries series{s.at("bytes").get<std::size_t>(), action_at(s), {}};
    for (const auto& p : s.at("points"))
      series.points.push_back({p.at("delay_us").get<double>(), p.at("achieved_delay_us").get<double>(), series.bytes,
                               series.action, p.at("trials").get<int>(), p.at("reproduced").get<int>()});
    w.series.push_back(std::move(series));
  }
  w.demos.clear();
  for (const auto& d : j.value("tutorial_demos", nlohmann::json::array())) {
    w.demos.push_back({d.at("code").get<std::string>(), d.at("bytes").get<std::size_t>(), action_at(d),
                       d.at("sleep_cycles").get<long long>(), d.at("sleep_after_copy").get<bool>(),
                       d.at("sleep_us_here").get<double>(), d.at("delay_ahead_us").get<double>(),
                       d.at("trials").get<int>(), d.at("reproduced").get<int>(), d.value("elsewhere", ""),
                       d.value("note", "")});
  }
}

}  // namespace hazardlab
