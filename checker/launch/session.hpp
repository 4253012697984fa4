// `hazardlab check [options] -- PROGRAM [ARGS...]`: runs the program with the checker injected into every
// process that starts CUDA, reads what each wrote, and reports. The exit status is the program's own when
// it was checked and nothing was found; a chosen one when something was found or something was not watched;
// a program ended by a signal keeps it.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/core/check_settings.hpp"
#include "checker/launch/check_report.hpp"
#include "checker/launch/sarif.hpp"
#include "hazardlab/usage_error.hpp"

namespace hazardlab::check {

// Bad input (no program, a program that cannot be run, a bad option value) is a UsageError naming it: exit 2.

struct CheckOptions {
  std::vector<std::string> command;
  std::optional<std::filesystem::path> json;      // also write the report here, as JSON
  std::optional<std::filesystem::path> markdown;  // ...as Markdown
  std::optional<std::filesystem::path> html;      // ...as a self-contained HTML page
  std::optional<std::filesystem::path> sarif;     // ...as SARIF 2.1.0, for code scanning and editors
  std::filesystem::path source_root = ".";        // SARIF's paths are relative to it
  ExplanationOf explanation;                      // SARIF's rules: each hazard's explanation
  int error_exitcode = 66;      // something was found (66, as ThreadSanitizer uses)
  int unchecked_exitcode = 67;  // nothing was found, but something was not watched
  std::filesystem::path inject_library;
  // Preloaded into the program where range keys may be used (the default, and range-keys), so that every
  // thread it creates runs the checker's hook first (empty: none).
  std::filesystem::path thread_shim;
  // Preloaded into the program under every protection, so that the program's SIGSEGV and SIGTRAP handlers live
  // behind the checker's, installed at start or while a copy is held (empty: none; validate() refuses one that
  // is missing).
  std::filesystem::path signal_shim;
  unsigned long sample = 0;  // 0: every copy watched; N: each host range's first N copies, then one in N
  // The two flags as given on the command line, either way (`--every-occurrence=false` too); unset: the program
  // inherits the setting from the environment. Given, the option wins over the environment, as --protection does.
  std::optional<bool> every_occurrence;  // every conflicting access, not one per pair of call sites
  std::optional<bool> kernels_own_mapped_memory;  // a kernel owns the pinned host memory it is handed, as a copy does
  std::optional<bool> ptx_footprints;  // a kernel's ranges read from its PTX
  std::optional<bool> graph_nodes;  // a launched graph's nodes followed one by one, with its edges
  std::optional<bool> managed_memory;  // a kernel owns the managed memory it is handed until the host knows it ran
  // setting::kCheckProtection as given on the command line (auto too); unset: the environment's stands.
  std::optional<ProtectionRequest> protection;
};

struct CheckOutcome {
  CheckReport report;
  int exit_status = 0;  // what `hazardlab check` exits with, unless...
  int reraise = 0;      // ...the program ended by this signal: end with it too
};

// Checks the options and the settings before anything runs (exit 2 on bad input, with or without a GPU); returns
// the warnings about the settings (a misspelt HAZARDLAB_* name), which run_check prints.
std::vector<std::string> validate(const CheckOptions& options);
CheckOutcome run_check(const CheckOptions& options, std::ostream& err);

}  // namespace hazardlab::check
