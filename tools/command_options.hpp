// The options of hazardlab's commands (hazardlab.cpp's table): what the command line gave, each command's
// options filling their own fields.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

#include "run_start.hpp"
#include "run_suite.hpp"

namespace hazardlab {

// What the command line gave: each command's options fill their own fields.
struct Given {
  std::string hazard_id;
  bool as_json = false;
  ManifestRequest manifest;
  std::filesystem::path results_root;
  std::string run_id;  // checked as a RunId when session-start runs
  long owner_pid = 0;
  RunSuiteRequest suite;
  std::string run_profile, soak_duration;  // `run --profile`, `--duration`: "" when not given
  std::filesystem::path run_dir, out, prometheus_dir;
};

void manifest_options(CLI::App& c, Given& g);
void start_options(CLI::App& c, Given& g);
void run_options(CLI::App& c, Given& g);
void report_options(CLI::App& c, Given& g);

}  // namespace hazardlab
