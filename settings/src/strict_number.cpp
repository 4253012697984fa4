#include "hazardlab/strict_number.hpp"

#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace hazardlab {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::size_t digits_from(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && is_digit(text[end])) ++end;
  return end - at;
}

std::string number_text(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

// Decimal: -?D*(.D*)?([eE][+-]?D+)? with at least one mantissa digit.
bool plain_decimal(std::string_view text, bool negatives) {
  std::size_t at = 0;
  if (negatives && !text.empty() && text[0] == '-') ++at;
  std::size_t mantissa = digits_from(text, at);
  at += mantissa;
  if (at < text.size() && text[at] == '.') {
    const std::size_t fraction = digits_from(text, at + 1);
    mantissa += fraction;
    at += 1 + fraction;
  }
  if (mantissa == 0) return false;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    const std::size_t exponent = digits_from(text, at);
    if (exponent == 0) return false;
    at += exponent;
  }
  return at == text.size();
}

}  // namespace

std::uint64_t parse_whole_number(std::string_view text, std::uint64_t min, std::uint64_t max) {
  const std::string expected = "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  if (text.empty() || digits_from(text, 0) != text.size()) {
    throw NumberRefused(expected + " (digits only: no sign, spaces, point or unit)");
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) throw NumberRefused(expected + " (this is too large to hold)");
  if (ec != std::errc() || end != text.data() + text.size()) throw NumberRefused(expected);
  if (value < min || value > max) throw NumberRefused(expected);
  return value;
}

double parse_decimal_number(std::string_view text, double min, double max, bool negatives) {
  const std::string expected = "expected a decimal number from " + number_text(min) + " to " + number_text(max);
  if (!plain_decimal(text, negatives)) {
    throw NumberRefused(expected + std::string(negatives ? " (digits, '-', '.' and an exponent only"
                                                         : " (digits, '.' and an exponent only: no sign") +
                        ", no spaces, no hex, no inf or nan)");
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && value != 0 && std::fabs(value) < DBL_MIN)) {
    // Which way it fell off: strtod (locale-free input here, only digits) says inf or (nearly) 0.
    const bool overflow = std::isinf(std::strtod(std::string(text).c_str(), nullptr));
    throw NumberRefused(expected + (overflow ? " (this is too large to hold)"
                                             : " (this is too small to hold: it would be read as 0)"));
  }
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) throw NumberRefused(expected);
  if (value < min || value > max) throw NumberRefused(expected);
  return value;
}

std::string refused_number_text(std::string_view name, std::string_view text, const NumberRefused& why) {
  return std::string(name) + "='" + std::string(text) + "': " + why.what();
}

}  // namespace hazardlab
