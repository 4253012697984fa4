// hazardlab-report: writes the reports of a run folder, on any machine. It needs no CUDA and no
// hazard registry: the run folder carries its catalogue, its GPUs and every result.
//
//   hazardlab-report --run results/runs/<run-id> --out gpu-reports
//
// Exit status as `hazardlab report`: 0 every verdict PASS, SKIPPED or PARTIAL; 1 a FAIL or
// INCONCLUSIVE verdict, an unreadable result, or (--require-gpu) a partial run or no GPU; 2 bad
// arguments or a report folder hazardlab will not write into.
#include <CLI/CLI.hpp>
#include <iostream>

#include "hazardlab/publish.hpp"

int main(int argc, char** argv) {
  using namespace hazardlab;
  CLI::App app{"hazardlab-report: writes the per-GPU reports of a hazardlab run folder"};
  std::filesystem::path run_dir;
  ReportOptions options;
  app.add_option("--run", run_dir, "the run folder (<results root>/runs/<run-id>)")->required();
  app.add_option("--out", options.out_dir, "the report folder")->required();
  app.add_flag("--require-gpu", options.require_gpu, "a run without a GPU, or a partial run, fails");
  app.add_option("--keep", options.keep_runs, "report sets kept, newest first")->check(CLI::Range(1, 100000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; any bad argument exits 2, as every bad input does.
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return report_run(run_dir, options, std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "hazardlab-report: " << e.what() << '\n';
    return 1;
  }
}
