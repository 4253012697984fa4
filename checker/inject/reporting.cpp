#include "checker/inject/reporting.hpp"

#include <cstdint>
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
  PythonStackText python;
  capture_python_stack(python, ThreadWithoutPython::NoFrames);
  const SiteId site = fnv1a(python.view(), site_of(raw, n));  // two Python lines through one native path: two sites
  Session& in = session();
  if (!in.writer.knows_site(site))
    in.writer.remember_site(site, std::vector<std::uintptr_t>(raw, raw + n),
                            parse_python_stack(std::string_view(python.text, static_cast<std::size_t>(python.length))));
  return site;
}

void write_races() {
  std::vector<Finding> races = session().checker.take_races();
  if (!races.empty()) session().writer.races(std::move(races));
}

}  // namespace hazardlab::check::inject
