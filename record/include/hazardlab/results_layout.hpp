#pragma once
// Where a run keeps what happened. One folder per run under a results root:
//
//   <root>/.hazardlab-results           marker: this folder is hazardlab's
//   <root>/lock                          held by the run in progress (run_lock.hpp)
//   <root>/runs/<run-id>/.hazardlab-run  marker: this run folder is hazardlab's
//   <root>/runs/<run-id>/run.json        the run record (run_record.hpp)
//   <root>/runs/<run-id>/catalog.json    every registered hazard and variant, as plain data
//   <root>/runs/<run-id>/inventory.json  the GPUs the run saw
//   <root>/runs/<run-id>/gpu0/<hazard>--<variant>.json   one result per case
//   <root>/runs/<run-id>/gpu0/perf/<part>.json           one record per measurement group
//
// A run folder holds everything its report needs, so it can be copied off a GPU node and
// reported anywhere.
#include <filesystem>
#include <string>
#include <string_view>

namespace hazardlab {

inline constexpr std::string_view kResultsRootMarker = ".hazardlab-results";
inline constexpr std::string_view kRunMarker = ".hazardlab-run";
// A published report set (<reports>/runs/<run-id>) has a marker of its own, so that nothing
// takes it for a run folder: a case never writes its result into a report set.
inline constexpr std::string_view kReportSetMarker = ".hazardlab-report-set";
inline constexpr std::string_view kReportsMarker = ".hazardlab-reports";  // a report folder (publish.hpp)
inline constexpr std::string_view kRunsFolder = "runs";
inline constexpr std::string_view kLockFile = "lock";
inline constexpr std::string_view kRunRecordFile = "run.json";
inline constexpr std::string_view kCatalogFile = "catalog.json";
inline constexpr std::string_view kInventoryFile = "inventory.json";

// The one name of a device in file names, test names and reports: "gpu0", or "nogpu" for -1.
std::string device_label(int device_index);
// The inverse; -2 when `label` names no device.
int device_index_of_label(std::string_view label);

// The one spelling of a test's name, in ctest, in `hazardlab run`'s progress, in the run record's
// registered cases and in the reports: "gpu0/<hazard>/<variant>" and "gpu0/perf/<part>".
std::string case_name(int device_index, std::string_view hazard_id, std::string_view variant_id);
std::string measurement_name(int device_index, std::string_view part);

std::filesystem::path run_folder(const std::filesystem::path& results_root, std::string_view run_id);
std::filesystem::path device_folder(const std::filesystem::path& run_dir, int device_index);

// Whether `dir` is a report set published in a report folder: it carries kReportSetMarker, or (a set
// written before sets had a marker of their own) its report folder's marker is two levels up.
bool is_report_set(const std::filesystem::path& dir);

// Throws std::invalid_argument unless `run_dir` is a run folder that session-start made (it carries
// kRunMarker, and is no report set): cases write only into hazardlab's own run folders.
void require_run_folder(const std::filesystem::path& run_dir);

// Reads a whole file; throws std::runtime_error naming the path.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace hazardlab
