// What one process of a checked program wrote: a JSON object per line, so that a process that crashes
// leaves every line it finished. The injected library writes it; the launcher reads every process's log.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
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
  std::optional<std::string> rank;  // the MPI or Slurm rank of the process ("0"), when it has one
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
                        const std::string& not_watching_because,
                        const std::optional<std::string>& rank = std::nullopt);
std::string note_line(const std::string& note);
std::string finding_line(const LoggedFinding& finding);
std::string summary_line(const CheckerStats& stats);
std::string progress_line(std::uint64_t driver_calls);
std::string protection_line(const std::string& backend, const std::string& why);

// A file that is not a process log as the injected library writes it: the message names the file, the line and
// what is wrong ("process-12.jsonl: line 3: finding.copy.bytes: expected a whole number >= 0"). Bad input.
class ProcessLogError : public std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Reads a log, line by line, in memory bounded by the findings it keeps (never by the file): every whole line
// is checked against the schema the writer writes (each record's keys, no other key, and each value's type and
// range); the first line is the process's header, and there is one. A last line without its newline (the process
// died, or is still writing it) is dropped and noted. A FIFO, a device or a folder is refused before anything is
// read. Throws ProcessLogError.
ProcessLog read_process_log(const std::filesystem::path& file);
// The file opened for reading (a descriptor the caller closes), or ProcessLogError when it is no regular file.
int open_log_file(const std::filesystem::path& file);

// "<device>:<inode>" of the file `path` names (a link followed), so that one log given twice is read once; ""
// when it cannot be read.
std::string process_log_identity(const std::filesystem::path& path);

void to_json(nlohmann::json& j, const Frame& f);
void to_json(nlohmann::json& j, const PythonFrame& f);
void to_json(nlohmann::json& j, const Finding& f);
void to_json(nlohmann::json& j, const CheckerStats& s);

}  // namespace hazardlab::check
