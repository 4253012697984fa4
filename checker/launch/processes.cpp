// How the reports name and count the processes of a checked program.
#include <cstring>
#include <string>

#include "checker/launch/check_report.hpp"

namespace hazardlab::check {

std::string process_name(const ProcessLog& process) {
  return "process " + std::to_string(process.pid) + (process.rank ? ", rank " + *process.rank : "");
}

bool made_watched_calls(const ProcessLog& process) {
  if (!process.watching || process.driver_calls_watched > 0 || !process.findings.empty()) return true;
  const std::optional<CheckerStats>& s = process.summary;
  return s && (s->copies_watched > 0 || s->copies_sampled_out > 0 || s->pageable_d2h_async > 0 ||
               s->neighbour_faults > 0 || s->occurrences > 0);
}

std::string unfinished_watch_text(const ProcessLog& process, const ProgramEnd& end) {
  const std::string calls = "at least " + std::to_string(process.driver_calls_watched) + " driver call(s)";
  if (end.signalled) {
    const char* abbrev = sigabbrev_np(end.code);
    const std::string signal = abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(end.code);
    return "was watched until the program ended by " + signal + ", after " + calls + ", and wrote no summary";
  }
  return "was watched for " + calls + " and ended without writing its summary (it was killed, crashed, or left "
         "by _exit)";
}

}  // namespace hazardlab::check
