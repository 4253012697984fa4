// What the injected library writes as it goes: the call site of a copy or a free, the races the checker found
// between device work, and the stop after an error of the checker's own.
#pragma once

#include <string>

#include "checker/core/finding.hpp"

namespace hazardlab::check::inject {

// The checker failed in its own code (an exception, a failed allocation): it stops watching, gives the
// program its memory back as it was and says why, so the run is never called clean, and the program runs on
// exactly as it would without the checker.
void stop_watching(const std::string& why);
// The call site of a copy or a free: its native stack and, in a Python program, its Python stack.
SiteId capture_site();
// The races the checker found between device work, written with both items' stacks.
void write_races();

}  // namespace hazardlab::check::inject
