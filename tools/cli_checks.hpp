#pragma once
// Checks of command-line values shared by hazardlab and hazardlab-report, so that an option means
// the same in both: folders that are not blank, programs that can run, and (from hazardlab/number_option.hpp)
// numbers read by the one strict parser. CLI11 prints the message and the tools exit 2.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <cstdint>
#include <string>

#include "hazardlab/output_file.hpp"
#include "hazardlab/results_root.hpp"
#include "hazardlab/number_option.hpp"

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

// A flag's value given in the same word (--flag=false): true or false, or 1 or 0. CLI11 would take any number for
// true ("--flag=2"), a slip that is never meant.
inline CLI::Validator flag_value() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        for (const char* allowed : {"true", "false", "1", "0"})
          if (text == allowed) return {};
        return "'" + text + "' is not allowed; expected true or false (or 1 or 0), or the flag alone";
      },
      "BOOL");
}

// A file to write: not blank, not a folder, in a folder that exists and takes a new file, and not a user's file
// (only one `ours` recognizes as this command's report is replaced): checked when the command line is read, before
// any work, not when the file is written at the end.
inline CLI::Validator output_file(WrittenByUs ours) {
  return CLI::Validator(
      [ours](std::string& text) -> std::string {
        if (text.find_first_not_of(" \t\r\n") == std::string::npos)
          return "'" + text + "' is not allowed; expected a file to write, not a blank";
        std::error_code ec;
        const std::filesystem::path path(text);
        if (std::filesystem::is_directory(path, ec))
          return "'" + text + "' is not allowed; it is a folder, expected a file to write";
        const std::string problem = output_file_problem(path, ours);
        if (problem.empty()) return problem;
        // The problem reads after the path ("is a folder", "the folder x does not exist"): "it" only before a verb.
        const bool of_the_file = problem.starts_with("is ") || problem.starts_with("cannot ");
        return "'" + text + "' is not allowed: " + (of_the_file ? "it " : "") + problem;
      },
      "FILE");
}

}  // namespace hazardlab::cli
