// hazardlab: the suite's command line. Lists and explains hazards, fingerprints the GPUs, lists
// the settings, and drives a run: ctest asks it for the run's plan (ctest-manifest), it
// starts the run's folder (session-start) and writes the reports (report).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <string_view>
#include <vector>

#include "catalog_commands.hpp"
#include "check_command.hpp"
#include "command_options.hpp"
#include "gpu_test_command.hpp"
#include "cli_checks.hpp"
#include "cuda/device.hpp"
#include "hazardlab/prometheus.hpp"
#include "hazardlab/publish.hpp"
#include "hazardlab/run_record.hpp"
#include "hazardlab/run_id.hpp"
#include "hazardlab/run_main.hpp"
#include "hazardlab/setting_source.hpp"
#include "hazardlab/settings_table.hpp"
#include "perf/checks.hpp"
#include "perf/reference.hpp"
#include "program_paths.hpp"
#include "run_start.hpp"
#include "run_suite.hpp"
#include "settings/settings.hpp"

namespace fs = std::filesystem;
using namespace hazardlab;

namespace {

// `hazardlab merge ...` is `hazardlab-report merge ...`, the CUDA-free tool installed beside this
// one: one implementation, which also runs on machines that only collect reports.
int merge_in_report_tool(int argc, char** argv) {
  const fs::path tool = program_folder() / "hazardlab-report";
  std::vector<char*> args{const_cast<char*>("hazardlab-report")};
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(tool.c_str(), args.data());
  return refuse_input("hazardlab", "merge needs " + tool.string() + ", which could not be started: " +
                                        std::strerror(errno));
}

// A duration is a soak's, and an injected fault a soak copy's (the soak, or the health profile's integrity round):
// given to another profile, on the command line or in the environment, either would be recorded and ignored.
void require_a_soak_for_soak_settings(const Given& g, const Settings& settings) {
  const std::string profile(to_string(settings.profile)), profile_name(setting::kProfile.name);
  const SettingSource environment = SettingSource::from_environment();
  const auto refuse_setting = [&](const SettingDeclaration& declaration, std::string_view profiles) {
    const std::string* value = environment.text(declaration);
    const std::string name(declaration.name);
    throw UsageError(name + "='" + (value ? *value : std::string()) + "' applies only to the " + std::string(profiles) +
                     " profile (this run's profile is " + profile + "); set " + profile_name + " (or --profile) to " +
                     std::string(profiles) + ", or unset " + name);
  };
  if (settings.profile != RunProfile::Soak && settings.profile != RunProfile::Health &&
      environment.given(setting::kSoakInjectFault))
    refuse_setting(setting::kSoakInjectFault, "soak or health");
  if (settings.profile == RunProfile::Soak) return;
  if (!g.soak_duration.empty()) {
    throw UsageError("--duration " + g.soak_duration + " applies only to --profile soak (this run's profile is " +
                     profile + "); give --profile soak, or leave --duration out");
  }
  if (environment.given(setting::kSoakDuration)) refuse_setting(setting::kSoakDuration, "soak");
}

// The commands that plan or start a run, and `settings`, which lists what a run would take: the soak's settings
// are judged against the profile only there. The others run no profile (list, report) and leave them alone.
bool takes_a_profile(std::string_view command) {
  for (std::string_view name : {"settings", "run", "ctest-manifest", "session-start"})
    if (command == name) return true;
  return false;
}

int write_reports(const Given& g, const Settings& settings) {
  const fs::path prometheus = g.prometheus_dir.empty() ? settings.prometheus_dir : g.prometheus_dir;
  // The setting is judged even where --prometheus overrides it: a bad value is never silently passed over.
  if (!g.prometheus_dir.empty() && !settings.prometheus_dir.empty())
    require_prometheus_folder(settings.prometheus_dir, setting::kPrometheusDir.name);
  ReportOptions options{g.out, settings.require_gpu, settings.keep_runs, {}, prometheus};
  if (g.prometheus_dir.empty()) options.prometheus_given_as = setting::kPrometheusDir.name;
  return report_run(g.run_dir, options, std::cout, std::cerr);
}

// Every command of hazardlab, once: its name and help, and how it runs. One with a main of its own parses its
// own arguments (check, findings, gpu-test) or is another program's (merge), and runs before anything of the
// suite is read (gpu-test after the GPUs are numbered as nvidia-smi numbers them, as the plan numbered them);
// the others' options are parsed here and each runs with the settings read.
struct Command {
  std::string_view name;
  std::string_view help;
  int (*own_main)(int argc, char** argv);
  void (*options)(CLI::App& command, Given& given);
  int (*run)(const Given& given, const Settings& settings);
  bool own_main_after_gpu_order = false;
};

const Command kCommands[] = {
    {"list", "list the hazards and their variants", nullptr, nullptr,
     [](const Given&, const Settings&) { return list_hazards(); }},
    {"explain", "explain one hazard: what is unsafe, the rule, the guards", nullptr,
     [](CLI::App& c, Given& g) { c.add_option("hazard", g.hazard_id, "hazard id")->required(); },
     [](const Given& g, const Settings&) { return explain_hazard(g.hazard_id); }},
    {"devices", "fingerprint the GPUs this process can see", nullptr,
     [](CLI::App& c, Given& g) { c.add_flag("--json", g.as_json, "print JSON"); },
     [](const Given& g, const Settings&) { return list_devices(g.as_json); }},
    {"settings", "list the HAZARDLAB_* environment variables", nullptr, nullptr,
     [](const Given&, const Settings&) { return list_settings(); }},
    {"run", "run every case on every GPU, without ctest, and write the reports", nullptr, run_options,
     [](const Given& g, const Settings& s) { return run_suite(g.suite, s, std::cout, std::cerr); }},
    {"ctest-manifest", "the run's plan, for ctest's registration", nullptr, manifest_options,
     [](const Given& g, const Settings& s) { return print_ctest_manifest(g.manifest, s, std::cout); }},
    {"session-start", "start a run: its folder, record and lock", nullptr, start_options,
     [](const Given& g, const Settings& s) {
       return start_run(RunStart{g.results_root, RunId::parse(g.run_id, "--run-id"), g.owner_pid}, s, std::cout,
                        std::cerr);
     }},
    {"report", "write the run's reports: JSON, Markdown, HTML, JUnit per GPU", nullptr, report_options,
     write_reports},
    {"merge", "merge many hosts' run folders into one fleet report: hazardlab merge --help", merge_in_report_tool,
     nullptr, nullptr},
    {"check", "check a program of yours for these hazards: hazardlab check -- PROGRAM [ARGS...]", check_main,
     nullptr, nullptr},
    {"findings", "the findings checked processes logged so far, as JSON (for the pytest plugin)", findings_main,
     nullptr, nullptr},
    {"gpu-test", "run a GPU test on the GPU ctest handed it: hazardlab gpu-test -- PROGRAM [ARGS...]", gpu_test_main,
     nullptr, nullptr, true},
};

const Command* command_named(std::string_view name) {
  for (const Command& c : kCommands)
    if (c.name == name) return &c;
  return nullptr;
}

// "list, explain, ... and findings", for the refusal of a command that is none of them.
std::string command_names() {
  std::string names;
  const std::size_t n = std::size(kCommands);
  for (std::size_t i = 0; i < n; ++i)
    names += (i == 0 ? "" : i + 1 == n ? " and " : ", ") + std::string(kCommands[i].name);
  return names;
}

// `run --profile` and `--duration` are the settings HAZARDLAB_PROFILE and HAZARDLAB_SOAK_DURATION given on the
// command line: checked here, naming the option, they stand above the environment.
std::vector<CommandLineSetting> settings_given(const Given& g) {
  std::vector<CommandLineSetting> given;
  if (!g.run_profile.empty())
    given.push_back({&setting::kProfile, choice_named(setting::kProfile, "--profile", "a run profile", g.run_profile)});
  if (!g.soak_duration.empty()) {
    const std::chrono::seconds duration = parse_duration_text(setting::kSoakDuration, "--duration", g.soak_duration);
    given.push_back({&setting::kSoakDuration, std::to_string(duration.count()) + "s"});
  }
  return given;
}

// A manifest that failed still names the GPUs and cases, so that ctest's registration can make every test
// name of the run fail with the message (print_failed_ctest_manifest). What cannot be listed is left out: the
// one failing test the registration always adds still fails the run.
int cases_for_failed_manifest(const ManifestRequest& request, int status) {
  if (!request.cases_on_failure) return status;  // a flag of ctest-manifest's alone
  try {
    print_failed_ctest_manifest(request, std::cout);
  } catch (const std::exception& e) {
    std::cerr << "hazardlab: the cases could not be listed either: " << e.what() << '\n';
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const Command* named = argc > 1 ? command_named(argv[1]) : nullptr;
  if (named != nullptr && named->own_main != nullptr && !named->own_main_after_gpu_order)
    return named->own_main(argc, argv);
  // Before anything touches CUDA: GPUs numbered as nvidia-smi numbers them.
  if (const std::string w = hazardlab::use_pci_bus_order(); !w.empty())
    std::cerr << "hazardlab: warning: " << w << '\n';
  if (named != nullptr && named->own_main != nullptr) return named->own_main(argc, argv);
  // --version prints the version and does nothing else: a word after it (another --version, a command) would be
  // passed over without a word.
  if (argc > 2 && std::string_view(argv[1]) == "--version")
    return refuse_input("hazardlab", "--version is given alone (it prints the version and runs nothing); '" +
                                         std::string(argv[2]) + "' after it would be passed over");
  if (argc > 1 && argv[1][0] != '-' && named == nullptr)
    return refuse_input("hazardlab", "no command '" + std::string(argv[1]) + "'; the commands are " + command_names());
  CLI::App app{"hazardlab: hazards of asynchronous host<->device transfers, reproduced and guarded"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(hazardlab_version()), "print hazardlab's version and exit");
  Given given;
  std::vector<CLI::App*> commands;
  for (const Command& c : kCommands) {
    commands.push_back(app.add_subcommand(std::string(c.name), std::string(c.help)));
    if (c.options != nullptr) c.options(*commands.back(), given);
  }
  // The failing tests of a failed manifest print its error again: they write no resource spec (ctest read it).
  for (int i = 0; i < argc; ++i) {
    const std::string_view word(argv[i]);
    if (word == "--resource-spec-dir" && i + 1 < argc) {
      ++i;
    } else if (word != "--cases-on-failure" && !word.starts_with("--resource-spec-dir=")) {
      given.manifest.failing_command.push_back(argv[i]);
    }
  }
  const auto body = [&]() -> int {
    given.suite.settings_given = settings_given(given);
    // Settings are checked first, before any GPU is looked for: a typo fails the same everywhere.
    const Settings settings = Settings::from_environment(given.suite.settings_given);
    for (std::size_t i = 0; i < commands.size(); ++i)
      if (*commands[i] && takes_a_profile(kCommands[i].name)) require_a_soak_for_soak_settings(given, settings);
    // The measurement settings too, so that a bad one stops the run at ctest's start.
    (void)perf::profile_from_environment();
    (void)perf::thresholds_from_environment();
    (void)perf::reference_tool_from_environment();
    for (const std::string& w : settings.warnings) std::cerr << "hazardlab: warning: " << w << '\n';
    for (std::size_t i = 0; i < commands.size(); ++i)
      if (*commands[i] && kCommands[i].run != nullptr) return kCommands[i].run(given, settings);
    return 0;
  };
  MainOptions options;
  options.after_error = [&](int status) { return cases_for_failed_manifest(given.manifest, status); };
  return run_main("hazardlab", app, argc, argv, body, options);
}
