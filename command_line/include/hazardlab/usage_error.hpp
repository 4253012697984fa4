#pragma once
// The one error for bad input found after a command line was parsed (an id that names nothing, a value out of
// range, a program that cannot be run), and the exit statuses every hazardlab program ends with
// (hazardlab/run_main.hpp). No CLI11 here: libraries that refuse input throw it without knowing the command line.
#include <stdexcept>

namespace hazardlab {

inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadInput = 2;

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace hazardlab
