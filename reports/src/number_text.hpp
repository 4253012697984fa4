#pragma once
// A number as the reports print it: one printf conversion (such as "%.2f") of one double.
#include <cstdio>
#include <string>

namespace hazardlab {

inline std::string number_text(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace hazardlab
