#pragma once
// Checks of command-line values shared by hazardlab and hazardlab-report, so that an option means
// the same in both: folders that are not blank, numbers read by the one strict parser
// (hazardlab/strict_number.hpp). CLI11 prints the message and the tools exit 2.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <cstdint>
#include <string>

#include "hazardlab/results_root.hpp"
#include "hazardlab/strict_number.hpp"

namespace hazardlab::cli {

// A folder path: not blank, no spaces or control characters at either end ("--results-root ''"
// never falls back to a default, and " " never becomes a folder named " ").
inline CLI::Validator folder_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string problem = folder_text_problem(text);
        return problem.empty() ? problem : "'" + text + "' is not allowed; " + problem;
      },
      "FOLDER");
}

// A value given on the command line: never empty or blank. `--profile ''` is a slip, not "not given", and
// never falls back to a default.
inline CLI::Validator not_blank() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool blank = text.find_first_not_of(" \t\r\n") == std::string::npos;
        return blank ? "'" + text + "' is not allowed; expected a value, not a blank" : std::string();
      },
      "TEXT");
}

// A program to run: an existing file this user may execute (a text file given by mistake is refused here,
// not when ctest first tries to run it).
inline CLI::Validator executable_file() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(text, ec) || ::access(text.c_str(), X_OK) != 0)
          return "'" + text + "' is not allowed; expected an executable file";
        return {};
      },
      "PROGRAM");
}

inline CLI::Validator whole_number(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        try {
          (void)parse_whole_number(text, min, max);
          return {};
        } catch (const NumberRefused& why) {
          return "'" + text + "' is not allowed; " + why.what();
        }
      },
      "WHOLE NUMBER " + std::to_string(min) + "-" + std::to_string(max));
}

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
