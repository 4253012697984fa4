#pragma once
// The one way hazardlab reads a number a person typed (a setting, a command-line option): plain
// decimal digits only, so that a value means the same to every reader. No spaces, no '+', no
// '-' unless negatives are allowed, no hex, no "inf" or "nan"; the range is checked after
// parsing, and a value too large or too small to hold (1e400, 1e-400) is refused, never rounded
// to infinity or to 0.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hazardlab {

// Why a text is not an allowed number: "expected a whole number from 1 to 100000". The caller
// names the setting or option and the text in front of it.
class NumberRefused : public std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Digits only, from `min` to `max`.
std::uint64_t parse_whole_number(std::string_view text, std::uint64_t min, std::uint64_t max);

// Decimal digits with an optional point and exponent ("0.8", "3.5", "25e-2"), from `min` to `max`;
// a leading '-' only when `negatives` is true.
double parse_decimal_number(std::string_view text, double min, double max, bool negatives = false);

// "NAME='text': reason", the form every refused number is reported in.
std::string refused_number_text(std::string_view name, std::string_view text, const NumberRefused& why);

}  // namespace hazardlab
