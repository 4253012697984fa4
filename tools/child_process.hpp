#pragma once
// Runs one program with its output in a log file and a time limit: what ctest does for a test.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace hazardlab {

struct ChildEnd {
  int exit_code = -1;  // -1 when killed or it could not start
  std::string how;     // "exit 0", "killed by signal 11 (Segmentation fault)", "timed out after 600 s"...
  double seconds = 0;
};

ChildEnd run_child(const std::vector<std::string>& argv, const std::filesystem::path& log, std::chrono::seconds limit);

}  // namespace hazardlab
