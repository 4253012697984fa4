// `hazardlab check [options] -- PROGRAM [ARGS...]`: the command line of the checker (checker/launch).
#include "check_command.hpp"

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "checker/launch/session.hpp"
#include "checker/core/check_settings.hpp"
#include "cli_checks.hpp"
#include "lesson/registry.hpp"
#include "program_paths.hpp"

namespace hazardlab {

int check_main(int argc, char** argv) {
  check::CheckOptions options;
  CLI::App app{
      "hazardlab check: runs PROGRAM and reports every host access to memory that an asynchronous copy still "
      "owned (a pinned source rewritten, a destination read before it landed, memory freed under a copy), "
      "whether or not the race went wrong this time"};
  app.name("hazardlab check");
  app.add_option("--json", options.json, "also write the report as JSON to this file");
  app.add_option("--markdown", options.markdown, "also write the report as Markdown to this file");
  app.add_option("--html", options.html, "also write the report as a self-contained HTML page to this file");
  app.add_option("--sarif", options.sarif,
                 "also write the findings as SARIF 2.1.0 to this file, for code scanning and editors");
  app.add_option("--source-root", options.source_root,
                 "the folder SARIF's paths are relative to (default: the working folder)")
      ->check(cli::folder_path());
  // Numbers are read as every hazardlab option reads them (hazardlab/strict_number.hpp): decimal digits only.
  app.add_option("--error-exitcode", options.error_exitcode,
                 "exit status when something was found (default 66; 1-255)")
      ->check(cli::whole_number(1, 255));
  app.add_option("--unchecked-exitcode", options.unchecked_exitcode,
                 "exit status when nothing was found but something was not watched (default 67; 1-255)")
      ->check(cli::whole_number(1, 255));
  app.add_option("--sample", options.sample,
                 "the faster mode: watch each host range's first N copies, then one in N (the report says how many "
                 "were left out; a hazard only in those is not found)")
      ->check(cli::whole_number(1, setting::kCheckSample.max));
  app.add_flag("--every-occurrence", options.every_occurrence,
               "report every conflicting access (each copy's first), not one per pair of call sites");
  app.add_option("command", options.command, "-- PROGRAM [ARGS...]: the program and its arguments");
  try {
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::ExtrasError& e) {
    // `hazardlab check ls -la`: the program's own options were read as the checker's.
    app.exit(e);
    std::cerr << "hazardlab check: put -- before the program and its arguments: hazardlab check [options] -- "
                 "PROGRAM [ARGS...]\n";
    return 2;
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // SARIF's rules carry each hazard's lesson, from the registry `hazardlab explain` reads.
  options.lesson = [](std::string_view id) -> std::optional<check::HazardLesson> {
    const Hazard* h = Registry::instance().find(id);
    if (h == nullptr) return std::nullopt;
    return check::HazardLesson{h->title, h->explanation};
  };
  options.inject_library = find_companion("libhazardlab-check-inject.so", {"../checker/inject", "../libexec/hazardlab"});
  if (options.inject_library.empty())
    options.inject_library = program_folder() / "../libexec/hazardlab/libhazardlab-check-inject.so";
  try {
    const check::CheckOutcome outcome = check::run_check(options, std::cerr);
    if (outcome.reraise != 0) {
      // The program ended by a signal: so does this, with the findings already written.
      std::cout.flush();
      ::signal(outcome.reraise, SIG_DFL);
      ::raise(outcome.reraise);
    }
    return outcome.exit_status;
  } catch (const check::CheckUsageError& e) {
    std::cerr << "hazardlab check: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "hazardlab check: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace hazardlab
