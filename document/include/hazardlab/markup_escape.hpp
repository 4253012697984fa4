#pragma once
// Text placed in HTML or XML: the five special characters as entities, and the control
// characters XML 1.0 does not allow (all but tab, newline, carriage return) as spaces.
#include <string>
#include <string_view>

namespace hazardlab {

inline std::string escape_markup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ? ' ' : static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace hazardlab
