// One checked process as the core keeps it: the settings the launcher decided, the Checker (with every allocation
// the checks look up, core/allocations.hpp), and the program's handles (streams, graphs). The injected library
// holds one, in its Session (checker/inject/session.hpp); the tests make their own.
#pragma once

#include "checker/core/check_settings.hpp"
#include "checker/core/checker.hpp"
#include "checker/core/handles.hpp"

namespace hazardlab::check {

struct CheckSession {
  explicit CheckSession(PageProtector& protector) : checker(protector) {}
  CheckSettings settings;
  Checker checker;
  Handles handles;
};

}  // namespace hazardlab::check
