#include "command_options.hpp"

#include "cli_checks.hpp"

namespace hazardlab {

void manifest_options(CLI::App& c, Given& g) {
  c.add_option("--default-results-root", g.manifest.default_results_root, "results root if not set")
      ->required()
      ->check(cli::folder_path());
  c.add_option("--default-reports-dir", g.manifest.default_reports_dir, "report folder if not set")
      ->required()
      ->check(cli::folder_path());
  c.add_option("--cases", g.manifest.cases, "the hazardlab-cases the plan runs (else the one beside this)")
      ->check(cli::executable_file());
  c.add_option("--perf", g.manifest.perf, "the hazardlab-perf the plan runs (else the one beside this)")
      ->check(cli::executable_file());
  c.add_option("--resource-spec-dir", g.manifest.resource_spec_dir,
               "also write ctest's resource spec into this folder (ctest-<ctest's pid>.json) and name it in the plan: "
               "the GPUs from which ctest hands each hazardlab_add_gpu_test its GPU")
      ->check(cli::folder_path());
  c.add_flag("--cases-on-failure", g.manifest.cases_on_failure,
             "when it fails, still list the GPUs and cases (the registration's call; its failing tests leave it out "
             "and print only the error)");
}

void start_options(CLI::App& c, Given& g) {
  c.add_option("--results-root", g.results_root, "the results root")->required()->check(cli::folder_path());
  // The id names the run's folder under <root>/runs: "../x" or "" would put it somewhere else (RunId refuses them).
  c.add_option("--run-id", g.run_id, "the run's id, from ctest-manifest")->required();
  c.add_option("--owner-pid", g.owner_pid, "the process that owns the run (ctest)")
      ->required()
      ->transform(cli::whole_number(1, 1L << 30));
}

void run_options(CLI::App& c, Given& g) {
  c.add_option("--results-root", g.suite.results_root,
               "where run folders go (else HAZARDLAB_RESULTS_ROOT, else ./hazardlab-results)")
      ->check(cli::folder_path());
  c.add_option("--reports-dir", g.suite.reports_dir,
               "where reports go (else HAZARDLAB_REPORTS_DIR, else ./hazardlab-reports)")
      ->check(cli::folder_path());
  c.add_option("--prometheus", g.suite.prometheus_dir,
               "node_exporter's textfile-collector folder: write hazardlab.prom there (else HAZARDLAB_PROMETHEUS_DIR)")
      ->check(cli::folder_path());
  c.add_option("--profile", g.run_profile,
               "validation (every case, the default), health (a node health check, under a minute) or soak "
               "(verified copies for --duration); else HAZARDLAB_PROFILE")
      ->check(cli::not_blank());
  c.add_option("--duration", g.soak_duration,
               "how long a soak runs: 90s, 10m, 2h, with --profile soak (else HAZARDLAB_SOAK_DURATION)")
      ->check(cli::not_blank());
}

void report_options(CLI::App& c, Given& g) {
  c.add_option("--run", g.run_dir, "the run folder")->required()->check(cli::folder_path());
  c.add_option("--out", g.out, "the report folder")->required()->check(cli::folder_path());
  c.add_option("--prometheus", g.prometheus_dir,
               "node_exporter's textfile-collector folder: write hazardlab.prom there (else HAZARDLAB_PROMETHEUS_DIR)")
      ->check(cli::folder_path());
}

}  // namespace hazardlab
