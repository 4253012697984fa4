// The injected library's side of the process log (checker/core/process_log.hpp): lines appended with
// write(2) as they happen, so that a crash keeps every finding made before it.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "checker/core/process_log.hpp"

namespace hazardlab::check {

class ProcessWriter {
 public:
  // Opens <folder>/process-<pid>.jsonl. False if it cannot (the launcher then finds no log and says so).
  bool open(const std::string& folder);
  void header(bool watching, const std::string& not_watching_because);
  void note(const std::string& text);
  void protection(const std::string& backend, const std::string& why);
  // Keeps the stack of a copy's call site (captured once per site).
  void remember_site(SiteId site, std::vector<std::uintptr_t> frames, std::vector<PythonFrame> python);
  // `access_python_of_main_thread`: the accessing thread never ran Python; its Python frames are the main thread's.
  void findings(const std::vector<Finding>& findings, const std::vector<std::uintptr_t>& access_frames,
                const std::vector<PythonFrame>& access_python, bool access_python_of_main_thread);
  // Races between device work: both items' stacks are remembered sites.
  void races(std::vector<Finding> races);
  void summary(const CheckerStats& stats);
  // One more driver call watched: a progress line at each power of two, so that a process that dies before
  // its summary still says how far it was watched.
  void count_driver_call();
  [[nodiscard]] bool knows_site(SiteId site);

 private:
  void write_line(const std::string& line);
  std::vector<Frame> frames_of(const std::vector<std::uintptr_t>& pcs) const;
  int fd_ = -1;
  std::atomic<std::uint64_t> driver_calls_{0};
  std::mutex mutex_;
  struct Site {
    std::vector<std::uintptr_t> frames;
    std::vector<PythonFrame> python;
  };
  std::map<SiteId, Site> sites_;
};

}  // namespace hazardlab::check
