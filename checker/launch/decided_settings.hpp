// The checker's settings, decided once by the launcher: each option given on the command line, either way, over the
// environment's HL_CHECK_* setting (validate() refused bad ones); handed to the program from one table
// (check_settings.hpp).
#pragma once

#include "checker/core/check_settings.hpp"
#include "checker/launch/session.hpp"

namespace hazardlab::check {

CheckSettings decided_settings(const CheckOptions& options);

}  // namespace hazardlab::check
