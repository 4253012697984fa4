#include "checker/inject/reporting.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "checker/fault/call_stack.hpp"
#include "checker/fault/python_stack.hpp"
#include "checker/inject/session.hpp"
#include "hazardlab/fnv1a.hpp"

namespace hazardlab::check::inject {

void stop_watching(const std::string& why) {
  Session& in = session();
  if (in.disabled.exchange(true)) return;
  try {
    in.checker.release_everything();
    in.writer.note("the checker stopped watching after an error of its own (" + why +
                   "); the rest of the run was not watched");
  } catch (...) {
    // Nothing more can be said; the missing summary makes the run not-checked.
  }
}

SiteId capture_site() {
  std::uintptr_t raw[kMaxSiteFrames];
  const int n = capture_stack(raw, kMaxSiteFrames);
  Session& in = session();
  const auto remember = [&](SiteId site, const PythonStackText& python) {
    in.writer.remember_site(site, std::vector<std::uintptr_t>(raw, raw + n), parse_python_stack(python.view()));
  };
  // Two Python lines through one native path are two sites. While the thread holds the GIL, the frames' key costs
  // no system call, and their text (a pipe and a write per token) is taken only for a site seen the first time.
  if (const std::optional<std::uint64_t> frames = python_stack_identity()) {
    const SiteId site = fnv1a_word(*frames, site_of(raw, n));
    if (!in.writer.knows_site(site)) {
      PythonStackText python;
      capture_python_stack(python, ThreadWithoutPython::NoFrames);
      remember(site, python);
    }
    return site;
  }
  PythonStackText python;
  capture_python_stack(python, ThreadWithoutPython::NoFrames);
  const SiteId site = fnv1a(python.view(), site_of(raw, n));
  if (!in.writer.knows_site(site)) remember(site, python);
  return site;
}

void write_races() {
  std::vector<Finding> races = session().checker.take_races();
  if (!races.empty()) session().writer.races(std::move(races));
}

}  // namespace hazardlab::check::inject
