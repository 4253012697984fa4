// What `hazardlab check` concludes about one run of a program: the verdict, why, and every finding with its
// stacks, built once from the processes' logs and then printed as text (stderr), written as JSON, or laid out for
// people as a document (check_document.hpp).
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "checker/core/process_log.hpp"

namespace hazardlab::check {

// The JSON report's identity, as every hazardlab JSON document names itself (reports/SCHEMA.md).
inline constexpr const char* kCheckReportSchema = "hazardlab.check-report";
inline constexpr int kCheckReportSchemaVersion = 1;

enum class CheckVerdict {
  Clean,       // every process that used CUDA was watched from its first CUDA call to its end, and nothing was found
  Found,       // at least one finding
  NotChecked,  // something was not watched (the reasons say what): never clean
  Sampled,     // nothing found in the copies watched, but --sample left some out (counted): not called clean
};
std::string_view to_string(CheckVerdict verdict);
// What the verdict says about the run, in one sentence.
std::string_view meaning(CheckVerdict verdict);

// How the program ended.
struct ProgramEnd {
  bool signalled = false;
  int code = 0;  // the exit status, or the signal
};

struct CheckReport {
  std::vector<std::string> command;
  ProgramEnd end;
  std::vector<ProcessLog> processes;
  CheckVerdict verdict = CheckVerdict::NotChecked;
  std::vector<std::string> not_checked_because;

  static CheckReport judge(std::vector<std::string> command, ProgramEnd end, std::vector<ProcessLog> processes);
  [[nodiscard]] std::size_t finding_count() const;
  [[nodiscard]] std::uint64_t copies_watched() const;
  [[nodiscard]] std::uint64_t copies_sampled_out() const;
  [[nodiscard]] std::string sampled_warning() const;  // what --sample left out; empty when nothing was
  [[nodiscard]] std::string summary() const;          // the counts, how the program ended and the verdict
  void print(std::ostream& out) const;  // the console text: scripts read its lines (checker/programs/expect_check.py)
  [[nodiscard]] nlohmann::json to_json() const;
};

// The wording the console text and the document (check_document.hpp) share, spelled once here; a finding's
// own sentences are Finding's (checker/core/finding.hpp).
std::string ending_text(const ProgramEnd& end);  // "exited with status 0", "ended by signal 11 (...)"
// Why a watched process that wrote no summary is not-checked: "was watched until SIGABRT after at least 64
// driver call(s) and wrote no summary".
std::string unfinished_watch_text(const ProcessLog& process, const ProgramEnd& end);
// "process 5563" or "process 5563, rank 1": how every report names a process.
std::string process_name(const ProcessLog& process);
// A process that made a CUDA call the checker watches (a copy, a stream, an allocation of pinned memory...), or one
// it could not watch (which may have): a process that only loaded the checker (Open MPI's orted, whose hwloc lists
// OpenCL platforms) is not counted as a CUDA process. The verdict does not change: such a process was watched.
bool made_watched_calls(const ProcessLog& process);
// Frames of the driver, CUPTI and the checker itself say nothing about the program: both leave them out.
bool tells_about_the_program(const Frame& frame);
// Why a finding's access Python frames are the main thread's (LoggedFinding::access_python_of_main_thread): said
// the same in the console text, the page and SARIF.
inline constexpr const char* kAccessPythonOfMainThread =
    "the main thread's: the access ran on a thread that never ran Python, such as a PyTorch intra-op worker";
// A finding as the JSON report gives it (its sentences, both stacks, both Python stacks); `hazardlab findings` too.
nlohmann::json logged_finding_json(const LoggedFinding& finding);
// The title of a finding's access's Python frames: whose they are when the accessing thread never ran Python.
std::string access_python_title(const LoggedFinding& finding);
std::string frame_text(const Frame& frame);          // "function at file:line (module+0xoffset)"
std::string python_frame_text(const PythonFrame& frame);  // "file:line in function"

}  // namespace hazardlab::check
