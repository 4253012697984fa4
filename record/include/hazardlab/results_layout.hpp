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
inline constexpr std::string_view kRunsFolder = "runs";
inline constexpr std::string_view kLockFile = "lock";
inline constexpr std::string_view kRunRecordFile = "run.json";
inline constexpr std::string_view kCatalogFile = "catalog.json";
inline constexpr std::string_view kInventoryFile = "inventory.json";

// The one name of a device in file names, test names and reports: "gpu0", or "nogpu" for -1.
std::string device_label(int device_index);
// The inverse; -2 when `label` names no device.
int device_index_of_label(std::string_view label);

std::filesystem::path run_folder(const std::filesystem::path& results_root, std::string_view run_id);
std::filesystem::path device_folder(const std::filesystem::path& run_dir, int device_index);

// Throws std::invalid_argument unless `run_dir` is a run folder that session-start made (it carries
// kRunMarker): cases write only into hazardlab's own run folders.
void require_run_folder(const std::filesystem::path& run_dir);

// Reads a whole file; throws std::runtime_error naming the path.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace hazardlab
