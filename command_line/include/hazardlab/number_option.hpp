#pragma once
// The checks of a command-line number, for every hazardlab program: the text is read by the one strict reader
// (hazardlab/strict_number.hpp), in decimal, and a whole number is handed on to CLI11 as the decimal it was read
// as. CLI11 converts an integer as C's strtoull with base 0 does ("077" is 63, "010" 8), and its own Range check
// reads the same way. A whole number is given with ->transform(cli::whole_number(...)): ->check() would hand
// CLI11 the text as typed (a lint rule refuses it). CLI11 prints the message and the program exits 2.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "hazardlab/strict_number.hpp"

namespace hazardlab::cli {

// A whole number from `min` to `max`, in decimal: "077" is 77, and CLI11 is handed "77".
inline CLI::Validator whole_number(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        try {
          text = std::to_string(parse_whole_number(text, min, max));
          return {};
        } catch (const NumberRefused& why) {
          return "'" + text + "' is not allowed; " + why.what();
        }
      },
      "WHOLE NUMBER " + std::to_string(min) + "-" + std::to_string(max));
}

// A decimal number from `min` to `max` ("0.5", "25e-2"); CLI11 reads a floating-point number as decimal.
inline CLI::Validator decimal_number(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        try {
          (void)parse_decimal_number(text, min, max);
          return {};
        } catch (const NumberRefused& why) {
          return "'" + text + "' is not allowed; " + why.what();
        }
      },
      "NUMBER");
}

}  // namespace hazardlab::cli
