#pragma once
// How every hazardlab program ends, so that the same mistake ends the same way in each of them:
//   0  it did what was asked (and --help);
//   2  bad input: the command line (CLI11 printed why), a setting (SettingsError) or a value (UsageError,
//      std::invalid_argument), each printed as "<program>: <what>", naming the input, the value and what is
//      allowed. The same with or without a GPU: input is refused before a GPU is looked for.
//   1  anything else that stopped the program (any other std::exception), printed the same way.
// A program's own statuses (a skip's 77, a checked program's exit status) pass through run_main untouched.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>

#include "hazardlab/usage_error.hpp"

namespace hazardlab {

// Prints "<program>: <what>" to stderr and returns kExitBadInput: for input refused before run_main parses.
int refuse_input(std::string_view program, const std::string& what);

struct MainOptions {
  // Printed after CLI11's message when arguments were left over (`hazardlab check ls -la`: put -- first).
  std::string extras_hint;
  // Called with the status of an error that ended the program's body (not of a parse error): it may print more
  // and returns the status to exit with.
  std::function<int(int status)> after_error;
};

// Parses argv with `app`, then runs `body` and returns its status; what either throws ends as above.
int run_main(std::string_view program, CLI::App& app, int argc, char** argv, const std::function<int()>& body,
             const MainOptions& options = {});

}  // namespace hazardlab
