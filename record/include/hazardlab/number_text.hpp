#pragma once
// A number as hazardlab prints it, in a report, a check or a record: one printf conversion (such as
// "%.2f GB/s") of one double. The one place a number is turned into text that way.
#include <cstdio>
#include <string>

namespace hazardlab {

inline std::string number_text(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace hazardlab
