// The environment the launcher hands the injected library: each variable declared here once, with the
// one function that reads it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hazardlab::check {

struct CheckVariable {
  std::string_view name;
  std::string_view meaning;
};

// Where each process of the checked program writes its log (process-<pid>.jsonl); set by `hazardlab check`.
// Not HAZARDLAB_*: the suite warns of unknown HAZARDLAB_* names, and its cases may run under the checker.
inline constexpr CheckVariable kLogFolder{"HL_CHECK_LOG_FOLDER",
                                          "where each checked process writes its log (set by hazardlab check)"};
// CUDA's own variable: the library the driver loads at cuInit.
inline constexpr CheckVariable kInjectionPath{"CUDA_INJECTION64_PATH",
                                              "the library CUDA loads into every process at cuInit (CUDA's own)"};

// The faster mode: each host range is watched in its first N copies, then in one of every N (hazardlab check --sample N).
inline constexpr CheckVariable kSample{"HL_CHECK_SAMPLE", "watch each host range's first N copies, then one in N"};

// Every conflicting access reported, not one per pair of call sites (hazardlab check --every-occurrence).
inline constexpr CheckVariable kEveryOccurrence{"HL_CHECK_EVERY_OCCURRENCE",
                                                "report every conflicting access, not one per pair of call sites"};

std::optional<std::string> check_log_folder_from_environment();
bool every_occurrence_from_environment();
// 0 when unset (every copy watched); the launcher wrote it, so a bad value is its own bug: taken as unset.
unsigned long sample_from_environment();

}  // namespace hazardlab::check
