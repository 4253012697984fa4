#pragma once
// The record of one run: one ctest invocation (or one `hazardlab run`), with its id, host, time,
// the GPUs it saw, every setting in force, which cases were selected, and, once its report is
// written, whether it was complete. Stored as <run folder>/run.json (results_layout.hpp).
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hazardlab/device_fingerprint.hpp"
#include "hazardlab/run_profile.hpp"

namespace hazardlab {

inline constexpr const char* kRunRecordSchema = "hazardlab.run";
inline constexpr int kRunRecordSchemaVersion = 1;

// A setting as it was in force for the run: its value and whether the environment set it.
struct RecordedSetting {
  std::string name;   // HAZARDLAB_TRIALS...
  std::string value;  // as the run used it
  bool from_environment = false;
  std::string note{};  // where a value that is not the default came from, if not the environment
};

// Which cases the run was asked to run: the ctest filters, or all of them.
struct Selection {
  std::vector<std::string> command;  // the command line that started the run, when known
  std::vector<std::string> filters;  // the filtering arguments found in it (-R x, -L y, --rerun-failed...)
  bool all() const noexcept { return filters.empty(); }
};

// The selection of a ctest command line: every argument that narrows which tests run (-R, -E,
// -L, -LE, -I, -U, --rerun-failed, --tests-from-file...), each with its value.
Selection selection_from_ctest_command(const std::vector<std::string>& command);

enum class RunState { Running, Finished };

struct RunRecord {
  std::string id;  // a RunId's text (run_id.hpp): set from one, checked as one when the record is read
  std::string host;
  long pid = 0;  // the process that owns the run (ctest)
  std::string started_at;
  std::string ended_at;  // empty while running
  std::string hazardlab_version;
  std::vector<DeviceFingerprint> devices;
  std::string no_device_reason;
  std::vector<RecordedSetting> settings;
  std::string sanitizer;              // compute-sanitizer tool the cases ran under, "" for none
  // Which cases the run is made of (run_profile.hpp). Complete means every case of its profile ran.
  RunProfile profile = RunProfile::Validation;
  std::vector<std::string> warnings;  // settings that were suspicious but not wrong
  Selection selection;
  // Every case the run registered, by name ("gpu0/h2d-pinned-mutate/stream-synchronize",
  // "gpu0/perf/bandwidth"): the run is complete when each of them left a result.
  std::vector<std::string> registered;
  RunState state = RunState::Running;
  bool complete = false;
  std::vector<std::string> not_run;             // registered cases without a result
  std::map<std::string, std::string> verdicts;  // device label -> verdict

  const RecordedSetting* setting(std::string_view name) const;
};

void to_json(nlohmann::json& j, const RunRecord& r);
void from_json(const nlohmann::json& j, RunRecord& r);

void store_run_record(const std::filesystem::path& run_dir, const RunRecord& r);
// Throws std::runtime_error for a missing or damaged record, std::invalid_argument for one whose
// schema_version is newer than this program's (it may mean something this program does not know) or whose id
// is no run id (RunId::parse).
RunRecord load_run_record(const std::filesystem::path& run_dir);

// This build's version (the project's VERSION).
std::string_view hazardlab_version() noexcept;

// Utilities of the record: this host's name, now in UTC as ISO 8601 and as a compact stamp.
std::string host_name();  // HAZARDLAB_HOST_NAME if set (validated by the settings), else gethostname()
std::string utc_now_iso8601();
std::string utc_now_compact();

}  // namespace hazardlab
