#pragma once
// A fleet report: many hosts' run folders merged into one table with a row per GPU, so that an
// operator sees at a glance which GPUs of which hosts failed, did not run everything, have not
// been validated for a while, or copy slower than the other GPUs of their model.
//
//   hazardlab-report merge --out DIR RUN_FOLDER...
//     -> DIR/fleet.json (schema hazardlab.fleet-report), fleet.md, fleet.html, fleet.csv
//
// Built from run folders alone (build_run, publish.hpp): no CUDA, no registry.
#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hazardlab/report.hpp"

namespace hazardlab {

inline constexpr const char* kFleetSchema = "hazardlab.fleet-report";
inline constexpr int kFleetSchemaVersion = 1;
inline constexpr std::string_view kFleetJsonFile = "fleet.json";
// A fleet report's folder carries this marker, as run and report folders carry theirs: a fleet.json
// alone could be anyone's.
inline constexpr std::string_view kFleetMarker = ".hazardlab-fleet";

// The outlier rule's fixed numbers. 1.4826 * MAD estimates the standard deviation of normally
// distributed figures; the floor keeps GPUs whose figures agree to a fraction of a percent (MAD 0,
// or nearly) from flagging measurement noise; below three GPUs a median says nothing.
inline constexpr double kMadToSigma = 1.4826;
inline constexpr double kMadFloorShareOfMedian = 0.01;
inline constexpr int kMinGpusForOutliers = 3;

struct FleetOptions {
  std::filesystem::path out_dir;
  double outlier_mads = 3.5;  // how many scaled MADs below its model's median a figure may fall
  // A row is stale when its run started more than this before the NEWEST run of the merge (not
  // before now): a report built later from an archive still shows which hosts fell behind.
  std::chrono::hours stale_after{24 * 7};
  std::string now_utc;  // the report's generated_at, ISO 8601; empty: the current time (tests set it)
};

// A later run of the row's GPU that did not run every case, so the row does not show it; its
// verdict is kept because a FAIL seen there must not vanish behind an older complete PASS.
struct NewerPartialRun {
  std::string run_id;
  std::string started_at;
  Verdict verdict = Verdict::Partial;
};

// One GPU of one host (or one host with no usable GPU), as its chosen run saw it.
struct FleetRow {
  std::string host;
  bool has_gpu = true;
  std::string pci_bus_id;  // empty without a GPU
  std::string uuid;
  int nvidia_smi_index = -1;
  int cuda_index = -1;
  bool mig = false;
  std::string name;  // the GPU model: outliers are judged among GPUs of the same name
  std::string driver_release;
  std::string no_device_reason;
  Verdict verdict = Verdict::Skipped;
  std::string verdict_reason;
  std::vector<std::string> failing_checks;      // missed thresholds by id; "perf/<part>" for a failed group
  std::vector<std::string> failing_cases;       // "<hazard>/<variant>" that failed, gave wrong data or missed
  std::vector<std::string> inconclusive_cases;  // "<hazard>/<variant>" that could not decide
  std::optional<double> pinned_h2d_gbps;        // pinned 256 MiB host-to-device median, GB/s
  std::optional<double> pinned_d2h_gbps;        // pinned 256 MiB device-to-host median, GB/s
  int controls_reproduced = 0;                  // positive controls that showed their hazard
  int controls_run = 0;                         // positive controls that ran (not skipped)
  std::string run_id;
  std::string run_started_at;
  std::filesystem::path run_folder;
  bool partial = false;  // this GPU's registered cases did not all run in the run shown
  RunProfile profile = RunProfile::Validation;  // the run shown (run_profile.hpp)
  bool stale = false;
  std::string stale_reason;
  bool outlier = false;
  std::string outlier_reason;  // the figure, the median and the distance, for each figure flagged
  int superseded_runs = 0;     // other runs of the same GPU that were read and not shown
  std::vector<NewerPartialRun> newer_partial_runs;

  std::string key() const;  // "<host>/<pci bus id>", "<host>/nogpu" without a GPU
};

// A model's median and spread for one figure, and whether its GPUs were tested for outliers.
struct ModelFigure {
  std::string model;
  std::string figure;  // "pinned_h2d_gbps" or "pinned_d2h_gbps"
  int gpus = 0;        // rows of this model with the figure
  bool tested = false;
  double median_gbps = 0;
  double mad_gbps = 0;
  double scale_gbps = 0;  // max(1.4826 * MAD, 1% of the median)
  std::string note;       // why not tested, when not
};

// A run folder that was read.
struct MergedRun {
  std::string id;
  std::string host;
  std::string started_at;
  std::filesystem::path folder;
  bool complete = false;
  int rows_shown = 0;                   // rows of the report showing this run
  std::vector<std::string> unreadable;  // result files that could not be read
};

struct FleetReport {
  std::string generated_at;
  std::string hazardlab_version;
  std::string newest_run_started_at;  // what `stale` is measured from
  double outlier_mads = 3.5;
  long stale_after_hours = 24 * 7;
  std::vector<FleetRow> rows;  // by host, then PCI bus id
  std::vector<ModelFigure> models;
  std::vector<MergedRun> runs;
  std::vector<std::string> notes;  // what a reader should know that no row says

  std::map<Verdict, int> counts() const;  // every verdict, 0 included
};

// Reads every run folder and keeps, for each GPU (the same host and PCI bus id, or the same UUID),
// its latest run in which all its cases ran, else its latest run, marked partial. Throws
// std::invalid_argument naming the folder and what is wrong with it, or a bad option.
FleetReport merge_runs(const std::vector<std::filesystem::path>& run_dirs, const FleetOptions& options);

// 0 only if every row is PASS, no newer partial run of a row's GPU FAILED or was INCONCLUSIVE,
// and every result file of the runs shown could be read; 1 otherwise.
int fleet_exit_status(const FleetReport& report);

// The median and scaled MAD of some figures: what the outlier rule measures distance in.
struct RobustSpread {
  double median = 0;
  double mad = 0;
  double scale = 0;  // max(kMadToSigma * mad, kMadFloorShareOfMedian * median)
};
RobustSpread robust_spread(std::vector<double> figures);

// Sets `outlier` on the rows whose figure falls more than `outlier_mads` scales below the median
// of their model, and fills report.models. merge_runs calls it.
void flag_outliers(FleetReport& report);

nlohmann::json fleet_to_json(const FleetReport& report);
std::string fleet_to_markdown(const FleetReport& report);
std::string fleet_to_html(const FleetReport& report);  // self-contained: no script, nothing loaded
std::string fleet_to_csv(const FleetReport& report);   // RFC 4180, a header row, one row per GPU

// Writes fleet.{json,md,html,csv} into `out_dir`, each file atomically, and returns their paths.
// Creates the folder if missing; throws std::invalid_argument for a path that is not a folder, or
// a non-empty folder without the kFleetMarker of an earlier fleet report (never overwrite what is
// not ours).
std::vector<std::filesystem::path> write_fleet_report(const FleetReport& report, const std::filesystem::path& out_dir);

// The merge command both CLIs run: merges, writes, prints a line per row and the files written.
// Returns fleet_exit_status, or 2 for bad input (a run folder that is missing or not a run folder,
// an output folder that is not ours), naming the path and what is expected.
int merge_command(const std::vector<std::filesystem::path>& runs, const FleetOptions& options, std::ostream& out,
                  std::ostream& err);

}  // namespace hazardlab
