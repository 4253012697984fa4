// hazardlab-report: writes the reports of a run folder, on any machine. It needs no CUDA and no
// hazard registry: the run folder carries its catalogue, its GPUs and every result.
//
//   hazardlab-report --run results/runs/<run-id> --out gpu-reports
//   hazardlab-report merge --out fleet RUN_FOLDER...      (many hosts' runs: a row per GPU)
//
// Exit status as `hazardlab report`: 0 every verdict PASS, SKIPPED or PARTIAL; 1 a FAIL or
// INCONCLUSIVE verdict, an unreadable result, a file that could not be written, or (--require-gpu) a
// partial run or no GPU; 2 bad arguments or settings, a path that is missing, a file, a results root,
// a report set or a folder that is no whole run folder (no run record, one that is not hazardlab's, no
// catalogue), a run record newer than this program, or a report folder hazardlab will not write into. `merge`: 0 only if every row is
// PASS, 1 otherwise, 2 bad input (fleet.hpp).
#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>

#include "cli_checks.hpp"
#include "hazardlab/setting_source.hpp"
#include "hazardlab/settings_table.hpp"
#include "hazardlab/fleet.hpp"
#include "hazardlab/prometheus.hpp"
#include "hazardlab/publish.hpp"
#include "hazardlab/run_main.hpp"

namespace {

// `merge` is parsed on its own: the report's --run and --out stay required and unchanged.
int merge_main(int argc, char** argv) {
  using namespace hazardlab;
  CLI::App app{"hazardlab-report merge: merges many hosts' run folders into one fleet report (a row per GPU)",
               "hazardlab-report merge"};
  FleetOptions options;
  std::vector<std::filesystem::path> runs;
  long stale_after_hours = options.stale_after.count();
  app.add_option("--out", options.out_dir, "the fleet report's folder (new, empty, or an earlier fleet report's)")
      ->required()
      ->check(cli::folder_path());
  // Above 0: a rule that flags a GPU for being below its model's median at all would flag half of them.
  app.add_option("--outlier-mads", options.outlier_mads,
                 "flag a figure this many scaled MADs below its GPU model's median (default 3.5)")
      ->check(cli::decimal_number(0.001, 1000));
  app.add_option("--stale-after-hours", stale_after_hours,
                 "a run this much older than the newest run merged is stale (default 168)")
      ->transform(cli::whole_number(1, 24L * 365 * 100));
  app.add_option("runs", runs, "run folders (<results root>/runs/<run-id>), from any hosts")
      ->required()
      ->check(cli::folder_path());
  return run_main("hazardlab-report merge", app, argc, argv, [&] {
    options.stale_after = std::chrono::hours(stale_after_hours);
    return merge_command(runs, options, std::cout, std::cerr);
  });
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hazardlab;
  if (argc > 1 && std::strcmp(argv[1], "merge") == 0) return merge_main(argc - 1, argv + 1);
  CLI::App app{
      "hazardlab-report: writes the per-GPU reports of a hazardlab run folder\n"
      "(hazardlab-report merge --help: many run folders merged into a fleet report)"};
  std::filesystem::path run_dir;
  ReportOptions options;
  app.add_option("--run", run_dir, "the run folder (<results root>/runs/<run-id>)")
      ->required()
      ->check(cli::folder_path());
  app.add_option("--out", options.out_dir, "the report folder")->required()->check(cli::folder_path());
  app.add_flag("--require-gpu", options.require_gpu, "a run without a GPU, or a partial run, fails");
  app.add_option("--prometheus", options.prometheus_dir,
                 "node_exporter's textfile-collector folder: write hazardlab.prom there (atomically)")
      ->check(cli::folder_path());
  app.add_option("--keep", options.keep_runs,
                 "report sets kept in the report folder, newest first, besides current and latest (default 20); the "
                 "oldest beyond it are removed and named. Run folders are never removed by a report")
      ->transform(cli::whole_number(1, 100000));
  return run_main("hazardlab-report", app, argc, argv, [&] {
    // As `hazardlab report`: every setting judged before any work (a misspelt name warned about, an error under
    // HAZARDLAB_STRICT=1; a bad value refused), and the report's own read where no option gives them.
    const SettingSource source = SettingSource::from_environment();
    for (const std::string& w : judge_given_settings(source)) std::cerr << "hazardlab-report: warning: " << w << '\n';
    for (const auto& [name, value] : source.entries()) {
      const std::string problem = name.ends_with("_ROOT") || name.ends_with("_DIR") ? folder_text_problem(value) : "";
      if (!problem.empty()) throw UsageError(name + "='" + value + "': " + problem);
    }
    if (app.count("--keep") == 0) options.keep_runs = source.whole(setting::kKeepRuns, options.keep_runs);
    if (options.require_gpu)
      options.require_gpu_given_as = "--require-gpu";
    else
      options.require_gpu = source.flag(setting::kRequireGpu, false);
    if (const std::string* dir = source.text(setting::kPrometheusDir)) {
      if (options.prometheus_dir.empty()) {
        options.prometheus_dir = *dir;
        options.prometheus_given_as = setting::kPrometheusDir.name;
      } else {  // judged even where --prometheus overrides it: a bad value is never silently passed over
        require_prometheus_folder(*dir, setting::kPrometheusDir.name);
      }
    }
    return report_run(run_dir, options, std::cout, std::cerr);
  });
}
