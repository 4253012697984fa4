// hazardlab: the suite's command line. Lists and explains hazards, fingerprints the GPUs, lists
// the settings, and drives a run: ctest asks it for the run's plan (ctest-manifest), it
// starts the run's folder (session-start) and writes the reports (report).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <vector>

#include "check_command.hpp"
#include "cli_checks.hpp"
#include "cuda/device.hpp"
#include "hazardlab/results_layout.hpp"
#include "hazardlab/publish.hpp"
#include "hazardlab/run_id.hpp"
#include "hazardlab/run_main.hpp"
#include "hazard/registry.hpp"
#include "perf/checks.hpp"
#include "perf/reference.hpp"
#include "program_paths.hpp"
#include "run_start.hpp"
#include "run_suite.hpp"
#include "settings/settings.hpp"

namespace fs = std::filesystem;
using namespace hazardlab;

namespace {

int list_hazards() {
  for (const Hazard& h : Registry::instance().hazards()) {
    std::cout << h.id << ": " << h.title << '\n';
    for (const Variant& v : h.variants)
      std::cout << "  " << v.id << " (" << to_string(v.kind) << "): " << v.title << '\n';
  }
  return 0;
}

#ifndef HAZARDLAB_LESSON_IDS
#define HAZARDLAB_LESSON_IDS ""
#endif

// Where the hazard's plain-CUDA lesson is, if it has one: next to this program when built
// (<build>/lessons) or installed (<prefix>/libexec/hazardlab/lessons).
std::string lesson_of(const std::string& id) {
  const std::string ids = "," + std::string(HAZARDLAB_LESSON_IDS) + ",";
  if (ids.find("," + id + ",") == std::string::npos) return "";
  std::string file = id;
  std::replace(file.begin(), file.end(), '-', '_');
  std::string text = "Plain-CUDA lesson: lessons/" + file + ".cu, the unsafe and the fixed code side by side";
  if (const fs::path program = find_companion("lesson-" + id, {"../lessons", "../libexec/hazardlab/lessons"});
      !program.empty()) {
    return text + ".\nRun it: " + program.string() + " [--delay-us N] [--trials N]\n";
  }
  return text + "; the build makes it lesson-" + id + " (`ctest -L lesson -R " + id + "` runs it).\n";
}

int explain(const std::string& id) {
  const Hazard* h = Registry::instance().find(id);
  if (!h) throw UsageError("no hazard '" + id + "'; `hazardlab list` shows them");
  std::cout << h->id << ": " << h->title << "\n\n" << h->explanation << "\n\nDocumented rules:\n";
  for (const Citation& c : h->rules) std::cout << "  - " << c.document << ", " << c.section << ": " << c.says << '\n';
  if (!h->requirements.empty()) {
    std::cout << "\nNeeds:";
    for (const Requirement& r : h->requirements) std::cout << ' ' << r.what << ';';
    std::cout << '\n';
  }
  if (!h->pytorch.empty()) {
    std::cout << "\nThe same mistake in PyTorch:\n";
    std::size_t start = 0;
    while (start < h->pytorch.size()) {
      const std::size_t end = std::min(h->pytorch.find('\n', start), h->pytorch.size());
      std::cout << "    " << h->pytorch.substr(start, end - start) << '\n';
      start = end + 1;
    }
  }
  if (const std::string lesson = lesson_of(h->id); !lesson.empty()) std::cout << '\n' << lesson;
  if (!h->unjudged_because.empty()) std::cout << "\nReported, not judged: " << h->unjudged_because << ".\n";
  std::cout << "\nVariants:\n";
  for (const Variant& v : h->variants) {
    std::cout << "  - " << v.id << " (" << to_string(v.kind) << "): " << v.title << '\n';
    for (const Parameter& p : v.space.parameters) {
      std::string values = p.value_text(p.min);
      for (std::uint32_t x = p.min + 1; x <= p.max && !p.labels.empty(); ++x) values += " or " + p.value_text(x);
      if (p.labels.empty() && p.max > p.min) values += " to " + p.value_text(p.max);
      std::cout << "      parameter " << p.name << " = " << values << ": " << p.meaning << '\n';
    }
  }
  return 0;
}

int devices(bool as_json) {
  const DeviceInventory inv = discover_devices();
  if (as_json) {
    std::cout << nlohmann::json(inv).dump(2) << '\n';
    return 0;
  }
  if (inv.devices.empty()) std::cout << "no usable GPU: " << inv.no_device_reason << '\n';
  for (const DeviceFingerprint& d : inv.devices) {
    std::cout << "GPU " << d.index << ": " << d.name << " (" << d.uuid << ", " << d.pci_bus_id << "), compute "
              << d.compute_capability() << ", asyncEngineCount " << d.async_engine_count << '\n';
  }
  return 0;
}

// A manifest that failed still names the GPUs and cases, so that ctest's registration can make every test
// name of the run fail with the message (print_failed_ctest_manifest). What cannot be listed is left out: the
// one failing test the registration always adds still fails the run.
int cases_for_failed_manifest(bool asked, const ManifestRequest& request, int status) {
  if (!asked) return status;
  try {
    print_failed_ctest_manifest(request, std::cout);
  } catch (const std::exception& e) {
    std::cerr << "hazardlab: the cases could not be listed either: " << e.what() << '\n';
  }
  return status;
}

int list_settings() {
  for (const SettingDeclaration& s : declared_settings())
    std::cout << s.name << ": " << s.help << " (default " << s.default_text << ")\n";
  return 0;
}

}  // namespace

// `hazardlab merge ...` is `hazardlab-report merge ...`, the CUDA-free tool installed beside this
// one: one implementation, which also runs on machines that only collect reports.
static int merge_in_report_tool(int argc, char** argv) {
  const fs::path tool = program_folder() / "hazardlab-report";
  std::vector<char*> args{const_cast<char*>("hazardlab-report")};
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(tool.c_str(), args.data());
  return refuse_input("hazardlab", "merge needs " + tool.string() + ", which could not be started: " +
                                        std::strerror(errno));
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "merge") return merge_in_report_tool(argc, argv);
  if (argc > 1 && std::string_view(argv[1]) == "check") return check_main(argc, argv);
  if (argc > 1 && std::string_view(argv[1]) == "findings") return findings_main(argc, argv);
  // Before anything touches CUDA: GPUs numbered as nvidia-smi numbers them.
  if (const std::string w = hazardlab::use_pci_bus_order(); !w.empty())
    std::cerr << "hazardlab: warning: " << w << '\n';
  CLI::App app{"hazardlab: hazards of asynchronous host<->device transfers, reproduced and guarded"};
  app.require_subcommand(1);
  std::string hazard_id;
  bool as_json = false;
  ManifestRequest manifest;
  fs::path start_root, run_dir, out;
  std::string start_run_id;  // checked as a RunId when session-start runs
  long start_owner_pid = 0;

  auto* list_cmd = app.add_subcommand("list", "list the hazards and their variants");
  auto* explain_cmd = app.add_subcommand("explain", "explain one hazard: what is unsafe, the rule, the guards");
  explain_cmd->add_option("hazard", hazard_id, "hazard id")->required();
  auto* devices_cmd = app.add_subcommand("devices", "fingerprint the GPUs this process can see");
  devices_cmd->add_flag("--json", as_json, "print JSON");
  auto* settings_cmd = app.add_subcommand("settings", "list the HAZARDLAB_* environment variables");
  auto* manifest_cmd = app.add_subcommand("ctest-manifest", "the run's plan, for ctest's registration");
  manifest_cmd->add_option("--default-results-root", manifest.default_results_root, "results root if not set")
      ->required()
      ->check(cli::folder_path());
  manifest_cmd->add_option("--default-reports-dir", manifest.default_reports_dir, "report folder if not set")
      ->required()
      ->check(cli::folder_path());
  manifest_cmd->add_option("--cases", manifest.cases, "the hazardlab-cases the plan runs (else the one beside this)")
      ->check(cli::executable_file());
  manifest_cmd->add_option("--perf", manifest.perf, "the hazardlab-perf the plan runs (else the one beside this)")
      ->check(cli::executable_file());
  manifest_cmd->add_flag("--cases-on-failure", manifest.cases_on_failure,
                         "when it fails, still list the GPUs and cases (the registration's call; its failing "
                         "tests leave it out and print only the error)");
  auto* start_cmd = app.add_subcommand("session-start", "start a run: its folder, record and lock");
  start_cmd->add_option("--results-root", start_root, "the results root")
      ->required()
      ->check(cli::folder_path());
  // The id names the run's folder under <root>/runs: "../x" or "" would put it somewhere else (RunId refuses them).
  start_cmd->add_option("--run-id", start_run_id, "the run's id, from ctest-manifest")->required();
  start_cmd->add_option("--owner-pid", start_owner_pid, "the process that owns the run (ctest)")
      ->required()
      ->transform(cli::whole_number(1, 1L << 30));
  RunSuiteRequest suite;
  auto* run_cmd = app.add_subcommand("run", "run every case on every GPU, without ctest, and write the reports");
  run_cmd
      ->add_option("--results-root", suite.results_root,
                   "where run folders go (else HAZARDLAB_RESULTS_ROOT, else ./hazardlab-results)")
      ->check(cli::folder_path());
  run_cmd
      ->add_option("--reports-dir", suite.reports_dir,
                   "where reports go (else HAZARDLAB_REPORTS_DIR, else ./hazardlab-reports)")
      ->check(cli::folder_path());
  run_cmd
      ->add_option("--prometheus", suite.prometheus_dir,
                   "node_exporter's textfile-collector folder: write hazardlab.prom there (else "
                   "HAZARDLAB_PROMETHEUS_DIR)")
      ->check(cli::folder_path());
  std::string run_profile, soak_duration;
  run_cmd
      ->add_option("--profile", run_profile,
                   "validation (every case, the default), health (a node health check, under a minute) or soak "
                   "(verified copies for --duration); else HAZARDLAB_PROFILE")
      ->check(cli::not_blank());
  CLI::Option* duration_option =
      run_cmd
          ->add_option("--duration", soak_duration,
                       "how long a soak runs: 90s, 10m, 2h, with --profile soak (else HAZARDLAB_SOAK_DURATION)")
          ->check(cli::not_blank());
  app.add_subcommand("merge", "merge many hosts' run folders into one fleet report: hazardlab merge --help");
  app.add_subcommand("check", "check a program of yours for these hazards: hazardlab check -- PROGRAM [ARGS...]");
  app.add_subcommand("findings", "the findings checked processes logged so far, as JSON (for the pytest plugin)");
  auto* report_cmd = app.add_subcommand("report", "write the run's reports: JSON, Markdown, HTML, JUnit per GPU");
  report_cmd->add_option("--run", run_dir, "the run folder")->required()->check(cli::folder_path());
  report_cmd->add_option("--out", out, "the report folder")->required()->check(cli::folder_path());
  fs::path prometheus_dir;
  report_cmd
      ->add_option("--prometheus", prometheus_dir,
                   "node_exporter's textfile-collector folder: write hazardlab.prom there (else "
                   "HAZARDLAB_PROMETHEUS_DIR)")
      ->check(cli::folder_path());

  if (argc > 1 && argv[1][0] != '-') {
    try {
      (void)app.get_subcommand(argv[1]);
    } catch (const CLI::OptionNotFound&) {
      return refuse_input("hazardlab", "no command '" + std::string(argv[1]) +
                                           "'; the commands are list, explain, devices, settings, run, ctest-manifest, "
                                           "session-start, report, merge, check and findings");
    }
  }
  for (int i = 0; i < argc; ++i) {
    if (std::string_view(argv[i]) != "--cases-on-failure") manifest.failing_command.push_back(argv[i]);
  }
  const auto body = [&]() -> int {
    // `run --profile` and `--duration` are the settings HAZARDLAB_PROFILE and HAZARDLAB_SOAK_DURATION, so that
    // every case and measurement the run starts sees them.
    if (!run_profile.empty()) {
      const std::string profile = choice_named(setting::kProfile, "--profile", "a run profile", run_profile);
      ::setenv(std::string(setting::kProfile.name).c_str(), profile.c_str(), 1);
    }
    if (!soak_duration.empty()) {
      (void)parse_duration_text(setting::kSoakDuration, "--duration", soak_duration);
      ::setenv(std::string(setting::kSoakDuration.name).c_str(), soak_duration.c_str(), 1);
    }
    // Settings are checked first, before any GPU is looked for: a typo fails the same everywhere.
    const Settings settings = Settings::from_environment();
    // A duration is a soak's: given to another profile it would be recorded and ignored.
    if (duration_option->count() > 0 && settings.profile != RunProfile::Soak) {
      throw UsageError("--duration " + soak_duration + " applies only to --profile soak (this run's profile is " +
                       std::string(to_string(settings.profile)) + "); give --profile soak, or leave --duration out");
    }
    // The measurement settings too, so that a bad one stops the run at ctest's start.
    (void)perf::profile_from_environment();
    (void)perf::thresholds_from_environment();
    (void)perf::reference_tool_from_environment();
    for (const std::string& w : settings.warnings) std::cerr << "hazardlab: warning: " << w << '\n';
    if (*list_cmd) return list_hazards();
    if (*explain_cmd) return explain(hazard_id);
    if (*devices_cmd) return devices(as_json);
    if (*settings_cmd) return list_settings();
    if (*manifest_cmd) return print_ctest_manifest(manifest, settings, std::cout);
    if (*start_cmd) {
      return start_run(RunStart{start_root, RunId::parse(start_run_id, "--run-id"), start_owner_pid}, settings,
                       std::cout, std::cerr);
    }
    if (*run_cmd) return run_suite(suite, settings, std::cout, std::cerr);
    if (*report_cmd) {
      return report_run(run_dir,
                        ReportOptions{out, settings.require_gpu, settings.keep_runs, {},
                                      prometheus_dir.empty() ? settings.prometheus_dir : prometheus_dir},
                        std::cout, std::cerr);
    }
    return 0;
  };
  MainOptions options;
  options.after_error = [&](int status) {
    return cases_for_failed_manifest(static_cast<bool>(*manifest_cmd) && manifest.cases_on_failure, manifest, status);
  };
  return run_main("hazardlab", app, argc, argv, body, options);
}
