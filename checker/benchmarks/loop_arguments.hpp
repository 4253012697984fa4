// The benchmark programs' arguments: decimal digits only (no sign, space or unit), within a range; anything else
// prints the program's usage and ends it with status 2.
#pragma once

#include <cstdio>
#include <cstdlib>

[[noreturn]] inline void loop_usage(const char* usage) {
  std::fputs(usage, stderr);
  std::exit(2);
}

inline long loop_argument(const char* text, long low, long high, const char* usage) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*text < '0' || *text > '9' || *end != '\0' || v < low || v > high) loop_usage(usage);
  return v;
}
