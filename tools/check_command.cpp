// `hazardlab check [options] -- PROGRAM [ARGS...]`: the command line of the checker (checker/launch).
#include "check_command.hpp"

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "checker/core/process_log.hpp"
#include "checker/launch/check_report.hpp"

#include "checker/launch/session.hpp"
#include "checker/core/check_settings.hpp"
#include "cli_checks.hpp"
#include "hazardlab/run_main.hpp"
#include "hazard/registry.hpp"
#include "program_paths.hpp"

namespace hazardlab {

int check_main(int argc, char** argv) {
  check::CheckOptions options;
  CLI::App app{
      "hazardlab check: runs PROGRAM and reports every host access to memory that an asynchronous copy still "
      "owned (a pinned source rewritten, a destination read before it landed, memory freed under a copy), "
      "and every race between work on two streams that nothing orders (a kernel or copy using what another stream "
      "writes), whether or not the race went wrong this time"};
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
      ->transform(cli::whole_number(1, 255));
  app.add_option("--unchecked-exitcode", options.unchecked_exitcode,
                 "exit status when nothing was found but something was not watched (default 67; 1-255)")
      ->transform(cli::whole_number(1, 255));
  app.add_option("--sample", options.sample,
                 "the faster mode: watch each host range's first N copies, then one in N (the report says how many "
                 "were left out; a hazard only in those is not found)")
      ->transform(cli::whole_number(1, setting::kCheckSample.max));
  bool every_occurrence = false, kernels_own_mapped_memory = false;
  app.add_flag("--every-occurrence", every_occurrence,
               "report every conflicting access (each copy's first), not one per pair of call sites")
      ->check(cli::flag_value());
  app.add_flag("--kernels-own-mapped-memory", kernels_own_mapped_memory,
               "a kernel handed a pointer into pinned host memory owns the bytes it points to while it may run, as "
               "a copy owns its host end: a host access meanwhile is a finding. Off by default: a host and a kernel "
               "may talk through mapped memory while it runs (system-scope atomics and __threadfence_system, a "
               "flag the kernel spins on), which the checker cannot see and would call a race")
      ->check(cli::flag_value());
  bool graph_nodes = false;
  app.add_flag("--graph-nodes", graph_nodes,
               "follow each kernel, memcpy and memset node of a launched CUDA graph as device work of its own, "
               "ordered by the graph's edges: races inside a graph and between a graph and a stream are found. Off by "
               "default until its GPU tests (check/graphs/*) have run (checker/README.md)")
      ->check(cli::flag_value());
  bool ptx_footprints = false;
  app.add_flag("--ptx-footprints", ptx_footprints,
               "read what each kernel touches from its PTX (carried in the program's fatbins or handed to the driver), "
               "bounded for each launch's arguments, grid and block, instead of judging it by what its pointer "
               "arguments point to; a kernel whose PTX is not found or not followed is judged by that rule. Off by "
               "default: its cost on programs that carry much PTX is still being weighed (checker/README.md)")
      ->check(cli::flag_value());
  bool managed_memory = false;
  app.add_flag("--managed-memory", managed_memory,
               "a kernel handed a pointer into managed memory (cudaMallocManaged) owns the whole allocation until "
               "the host knows it ran: a host access meanwhile, with no synchronization, is a finding. Off by default "
               "until protecting managed pages while a kernel runs is measured to leave what the program computes "
               "unchanged on each GPU (checker/README.md)")
      ->check(cli::flag_value());
  std::string protection;
  app.add_option("--protection", protection,
                 "how owned pages are protected: auto (range keys where the CPU and kernel offer memory "
                 "protection keys, the default), range-keys (a key per pinned range that each copy closes "
                 "without a system call), keys (two keys alone: a system call per copy), or mprotect; the report "
                 "says which watched each process, and why")
      ->check(cli::not_blank());
  // Everything from the program on is the program's: `hazardlab check ./prog --sample 5` gives --sample 5 to
  // ./prog, as `hazardlab check -- ./prog --sample 5` does. The checker's options come before the program.
  app.prefix_command();
  app.footer(
      "PROGRAM [ARGS...]: the program and its arguments. The checker's options come first; the first word that is "
      "not one of them (or everything after --) starts the program, and every word after it is the program's: "
      "`hazardlab check ./prog --sample 5` runs ./prog --sample 5 with every copy watched.");
  const auto body = [&]() -> int {
    options.command = app.remaining();
    if (!options.command.empty() && options.command.front() == "--") {
      options.command.erase(options.command.begin());
    } else if (!options.command.empty() && options.command.front().starts_with("-")) {
      // Before the program, a word that starts with '-' is meant for the checker: never run as a program.
      throw UsageError("'" + options.command.front() +
                       "' is not an option of hazardlab check (`hazardlab check --help` lists them); the program and "
                       "its arguments come after the checker's options: hazardlab check [options] [--] PROGRAM "
                       "[ARGS...]");
    }
    if (!protection.empty()) options.protection = check::protection_request_given("--protection", protection);
    // A flag given either way wins over the HL_CHECK_* setting the program would inherit.
    if (app.count("--every-occurrence") > 0) options.every_occurrence = every_occurrence;
    if (app.count("--kernels-own-mapped-memory") > 0) options.kernels_own_mapped_memory = kernels_own_mapped_memory;
    if (app.count("--managed-memory") > 0) options.managed_memory = managed_memory;
    if (app.count("--graph-nodes") > 0) options.graph_nodes = graph_nodes;
    if (app.count("--ptx-footprints") > 0) options.ptx_footprints = ptx_footprints;
    // One status for two verdicts would make a finding and an unwatched run look alike to whoever reads it.
    if (options.error_exitcode == options.unchecked_exitcode)
      throw UsageError("--error-exitcode and --unchecked-exitcode are both " + std::to_string(options.error_exitcode) +
                       "; a finding and a run not fully watched must end with different statuses");
    if (app.count("--source-root") > 0 && !options.sarif) {
      throw UsageError("--source-root '" + options.source_root.string() + "' is given without --sarif; it sets "
                       "the folder SARIF's paths are relative to, so it is allowed only with --sarif FILE");
    }
    // SARIF's rules carry each hazard's explanation, from the registry `hazardlab explain` reads.
    options.explanation = [](std::string_view id) -> std::optional<check::HazardExplanation> {
      const Hazard* h = Registry::instance().find(id);
      if (h == nullptr) return std::nullopt;
      return check::HazardExplanation{h->title, h->explanation};
    };
    options.inject_library =
        find_companion("libhazardlab-check-inject.so", {"../checker/inject", "../libexec/hazardlab"});
    if (options.inject_library.empty())
      options.inject_library = program_folder() / "../libexec/hazardlab/libhazardlab-check-inject.so";
    options.thread_shim = find_companion("libhazardlab-check-threads.so", {"../checker", "../libexec/hazardlab"});
    options.signal_shim = find_companion("libhazardlab-check-signals.so", {"../checker", "../libexec/hazardlab"});
    if (options.signal_shim.empty())  // said missing, by its installed place, before the program runs
      options.signal_shim = program_folder() / "../libexec/hazardlab/libhazardlab-check-signals.so";
    const check::CheckOutcome outcome = check::run_check(options, std::cerr);
    if (outcome.reraise != 0) {
      // The program ended by a signal: so does this, with the findings already written.
      std::cout.flush();
      ::signal(outcome.reraise, SIG_DFL);
      ::raise(outcome.reraise);
    }
    return outcome.exit_status;
  };
  return run_main("hazardlab check", app, argc - 1, argv + 1, body);
}

int findings_main(int argc, char** argv) {
  std::vector<std::filesystem::path> logs;
  CLI::App app{
      "hazardlab findings: the findings that checked processes wrote so far into their logs (the files "
      "process-<pid>.jsonl in the folder HL_CHECK_LOG_FOLDER names), as JSON on stdout: each process's pid, "
      "parent, whether it was watched and why not, and its findings as the JSON report gives them: the hazard, what "
      "happened, the missing synchronization, the fix, the stacks (module and offset) and the Python frames. A line still being written is left for the next call."};
  app.name("hazardlab findings");
  // Each log is checked by the reader (checker/core/process_log.hpp), which names the file and what is wrong.
  app.add_option("logs", logs, "process logs")->required();
  return run_main("hazardlab findings", app, argc - 1, argv + 1, [&]() -> int {
    // Each log once: the same file twice (by two names, or a link) would count its findings twice.
    std::map<std::string, std::string> named;  // identity -> the name it was first given as
    for (const std::filesystem::path& log : logs) {
      const std::string identity = check::process_log_identity(log);
      if (identity.empty()) continue;  // refused by the reader, naming it
      if (const auto [it, fresh] = named.emplace(identity, log.string()); !fresh)
        throw UsageError(log.string() + ": the same file as " + it->second + "; give each process log once");
    }
    // Every log is read and checked before anything is printed, then the processes are printed one at a time: the
    // output is never half a document, and never held whole in memory besides the findings.
    std::vector<check::ProcessLog> processes;
    for (const std::filesystem::path& log : logs) processes.push_back(check::read_process_log(log));
    std::cout << "{\"processes\":[";
    for (std::size_t i = 0; i < processes.size(); ++i) {
      check::ProcessLog& p = processes[i];
      nlohmann::json process = {{"log", logs[i].string()},
                                {"pid", p.pid},
                                {"parent", p.parent},
                                {"watching", p.watching},
                                {"not_watching_because", p.not_watching_because}};
      if (p.rank) process["rank"] = *p.rank;
      // The process's keys, then its findings one at a time, each freed once printed.
      std::string head = process.dump();
      head.pop_back();
      std::cout << (i == 0 ? "" : ",") << head << ",\"findings\":[";
      for (std::size_t k = 0; k < p.findings.size(); ++k)
        std::cout << (k == 0 ? "" : ",") << check::logged_finding_json(p.findings[k]).dump();
      std::cout << "]}";
      std::vector<check::LoggedFinding>().swap(p.findings);
    }
    std::cout << "]}\n";
    return 0;
  });
}

}  // namespace hazardlab
