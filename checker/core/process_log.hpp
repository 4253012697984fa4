// What one process of a checked program wrote: a JSON object per line, so that a process that crashes
// leaves every line it finished. The injected library writes it; the launcher reads every process's log.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/core/checker.hpp"
#include "checker/core/finding.hpp"

namespace hazardlab::check {

// A stack frame as captured: the module it is in and the offset there (symbolized by the launcher).
struct Frame {
  std::string module;
  std::uint64_t offset = 0;
  std::string symbol;    // filled by the launcher: function
  std::string location;  // filled by the launcher: file:line, if the module has line information
};

// A frame of the Python program that made the call (empty stacks outside Python).
struct PythonFrame {
  std::string file;
  int line = 0;
  std::string function;
};

struct LoggedFinding {
  Finding finding;
  std::vector<Frame> copy_stack, access_stack;
  std::vector<PythonFrame> copy_python = {}, access_python = {};
  // The accessing thread never ran Python (a PyTorch intra-op worker): access_python is the main thread's stack.
  bool access_python_of_main_thread = false;
};

// Why a process was not (or not wholly) watched. Any of these means its run cannot be called clean.
struct ProcessLog {
  std::int64_t pid = 0, parent = 0;
  std::string program;
  bool watching = false;
  std::string not_watching_because;  // set when watching is false
  std::vector<std::string> notes;    // events that weaken what the run shows (a replaced handler, ...)
  std::vector<LoggedFinding> findings;
  std::optional<CheckerStats> summary;  // absent: the process ended before it could write one (a crash)
  std::uint64_t driver_calls_watched = 0;  // at least this many (the last progress line before an end)
  // How the pages were protected: "mprotect" or "protection-keys", and why that one ("" when not said).
  std::string protection, protection_why;
};

// The lines, one per call, as the injected library writes them.
std::string header_line(std::int64_t pid, std::int64_t parent, const std::string& program, bool watching,
                        const std::string& not_watching_because);
std::string note_line(const std::string& note);
std::string finding_line(const LoggedFinding& finding);
std::string summary_line(const CheckerStats& stats);
std::string progress_line(std::uint64_t driver_calls);
std::string protection_line(const std::string& backend, const std::string& why);

// Reads a log; a line that is not whole (the process died while writing it) is dropped and noted.
ProcessLog read_process_log(const std::filesystem::path& file);

void to_json(nlohmann::json& j, const Frame& f);
void to_json(nlohmann::json& j, const PythonFrame& f);
void to_json(nlohmann::json& j, const Finding& f);
void to_json(nlohmann::json& j, const CheckerStats& s);

}  // namespace hazardlab::check
