// What `hazardlab check` concludes about one run of a program: the verdict, why, and every finding with its
// stacks, built once from the processes' logs and then printed as text (stderr) or written as JSON.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "checker/core/process_log.hpp"

namespace hazardlab::check {

enum class CheckVerdict {
  Clean,       // every process that used CUDA was watched from its first CUDA call to its end, and nothing was found
  Found,       // at least one finding
  NotChecked,  // something was not watched (the reasons say what): never clean
  Sampled,     // nothing found in the copies watched, but --sample left some out (counted): not called clean
};
std::string_view to_string(CheckVerdict verdict);

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
  void print(std::ostream& out) const;
  [[nodiscard]] nlohmann::json to_json() const;
};

}  // namespace hazardlab::check
