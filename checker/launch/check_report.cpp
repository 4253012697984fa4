#include "checker/launch/check_report.hpp"

#include <algorithm>

#include <csignal>
#include <cstring>
#include <map>
#include <sstream>

#include "hazardlab/run_record.hpp"

namespace hazardlab::check {

std::string_view to_string(CheckVerdict verdict) {
  switch (verdict) {
    case CheckVerdict::Clean: return "clean";
    case CheckVerdict::Found: return "found";
    case CheckVerdict::NotChecked: return "not-checked";
    case CheckVerdict::Sampled: return "sampled";
  }
  return "?";
}

std::string_view meaning(CheckVerdict verdict) {
  switch (verdict) {
    case CheckVerdict::Clean:
      return "Every process that started CUDA was watched from its first CUDA call to its end, and no host access to "
             "memory an asynchronous copy still owned was found";
    case CheckVerdict::Found:
      return "The host touched memory that an asynchronous copy still owned: each finding says where, what "
             "synchronization was missing and the smallest fix";
    case CheckVerdict::NotChecked:
      return "Something was not watched (the notes say what): nothing was found in what was, but the run is not "
             "called clean";
    case CheckVerdict::Sampled:
      return "Nothing was found in the copies watched, but --sample left some copies unwatched (counted): the run is "
             "not called clean";
  }
  return "?";
}

CheckReport CheckReport::judge(std::vector<std::string> command, ProgramEnd end, std::vector<ProcessLog> processes) {
  CheckReport r;
  r.command = std::move(command);
  r.end = end;
  r.processes = std::move(processes);
  if (r.processes.empty())
    r.not_checked_because.push_back(
        "no process of the program started CUDA with the checker loaded: the program may not use CUDA, or it (or a "
        "process it started) cleared CUDA_INJECTION64_PATH");
  for (const ProcessLog& p : r.processes) {
    const std::string who = process_name(p) + " (" + p.program + ")";
    if (!p.watching) r.not_checked_because.push_back(who + " was not watched: " + p.not_watching_because);
    for (const std::string& note : p.notes) r.not_checked_because.push_back(who + ": " + note);
    // A process that never wrote its summary was not watched to its end: what it did after the last line it
    // wrote is unknown, so its run is never called clean.
    if (p.watching && !p.summary) r.not_checked_because.push_back(who + " " + unfinished_watch_text(p, end));
  }
  r.verdict = r.finding_count() > 0             ? CheckVerdict::Found
              : !r.not_checked_because.empty() ? CheckVerdict::NotChecked
              : r.copies_sampled_out() > 0     ? CheckVerdict::Sampled
                                               : CheckVerdict::Clean;
  return r;
}

std::size_t CheckReport::finding_count() const {
  std::size_t n = 0;
  for (const ProcessLog& p : processes) n += p.findings.size();
  return n;
}

std::uint64_t CheckReport::copies_watched() const {
  std::uint64_t n = 0;
  for (const ProcessLog& p : processes)
    if (p.summary) n += p.summary->copies_watched;
  return n;
}

std::uint64_t CheckReport::copies_sampled_out() const {
  std::uint64_t n = 0;
  for (const ProcessLog& p : processes)
    if (p.summary) n += p.summary->copies_sampled_out;
  return n;
}

std::string CheckReport::sampled_warning() const {
  const std::uint64_t left_out = copies_sampled_out();
  if (left_out == 0) return "";
  return "--sample left " + std::to_string(left_out) +
         " copy ends unwatched; a hazard only in those copies would not be found";
}

std::string CheckReport::summary() const {
  const auto cuda = static_cast<std::size_t>(std::count_if(processes.begin(), processes.end(), made_watched_calls));
  const std::string others =
      cuda == processes.size()
          ? ""
          : " (and " + std::to_string(processes.size() - cuda) + " that made no CUDA call the checker watches)";
  return std::to_string(finding_count()) + " finding(s) in " + std::to_string(cuda) + " CUDA process(es)" + others +
         ", " + std::to_string(copies_watched()) + " copy ends watched; the program " + ending_text(end) +
         "; verdict " + std::string(to_string(verdict));
}

std::string ending_text(const ProgramEnd& end) {
  if (end.signalled)
    return std::string("ended by signal ") + std::to_string(end.code) + " (" + strsignal(end.code) + ")";
  return "exited with status " + std::to_string(end.code);
}

bool tells_about_the_program(const Frame& frame) {
  const std::string name = std::filesystem::path(frame.module).filename().string();
  // The driver, CUPTI, and every library of the checker's own (the injected one and the preloaded shims).
  return !(name.starts_with("libcuda.") || name.starts_with("libcupti.") || name.starts_with("libhazardlab-check-"));
}

std::string frame_text(const Frame& frame) {
  std::ostringstream out;
  out << (frame.symbol.empty() ? "?" : frame.symbol);
  if (!frame.location.empty()) out << " at " << frame.location;
  out << " (" << std::filesystem::path(frame.module).filename().string() << "+0x" << std::hex << frame.offset << ")";
  return out.str();
}

std::string access_python_title(const LoggedFinding& finding) {
  std::string heading = finding.finding.first_heading();
  heading.pop_back();  // its colon
  return finding.access_python_of_main_thread ? heading + ", Python (" + kAccessPythonOfMainThread + ")"
                                              : heading + ", Python";
}

std::string python_frame_text(const PythonFrame& frame) {
  return frame.file + ":" + std::to_string(frame.line) + " in " + frame.function;
}

namespace {

constexpr const char* kBar = "========= ";

void print_python(std::ostream& out, const std::string& title, const std::vector<PythonFrame>& stack) {
  if (stack.empty()) return;
  out << kBar << "    " << title << '\n';
  int shown = 0;
  for (const PythonFrame& f : stack) {
    out << kBar << "        " << python_frame_text(f) << '\n';
    if (++shown == 12) break;
  }
}

void print_stack(std::ostream& out, const char* title, const std::vector<Frame>& stack) {
  out << kBar << "    " << title << '\n';
  int shown = 0;
  for (const Frame& f : stack) {
    if (!tells_about_the_program(f)) continue;
    out << kBar << "        #" << shown << ' ' << frame_text(f) << '\n';
    if (++shown == 16) break;
  }
  if (shown == 0) out << kBar << "        (no frames)\n";
}

}  // namespace

void CheckReport::print(std::ostream& out) const {
  out << kBar << "HAZARDLAB CHECK\n";
  for (const ProcessLog& p : processes) {
    for (const LoggedFinding& lf : p.findings) {
      const Finding& f = lf.finding;
      out << kBar << "Hazard " << f.hazard() << ": " << to_string(f.kind) << " (" << process_name(p) << ", thread "
          << f.thread << ")\n";
      out << kBar << "    " << f.what() << '\n';
      print_python(out, access_python_title(lf) + ":", lf.access_python);
      const std::string second = f.second_heading();
      print_python(out, second.substr(0, second.size() - 1) + ", Python:", lf.copy_python);
      if (!lf.access_stack.empty()) print_stack(out, f.first_heading().c_str(), lf.access_stack);
      print_stack(out, second.c_str(), lf.copy_stack);
      out << kBar << "    Missing: " << f.missing() << '\n';
      out << kBar << "    Fix: " << f.smallest_fix() << '\n';
      out << kBar << "    Explained: " << f.explain_command() << "\n" << kBar << '\n';
    }
  }
  // How the pages were protected, once per backend and reason.
  std::map<std::pair<std::string, std::string>, int> protected_by;
  for (const ProcessLog& p : processes)
    if (!p.protection.empty()) ++protected_by[{p.protection, p.protection_why}];
  for (const auto& [backend, count] : protected_by)
    out << kBar << "Page protection: " << backend.first << " in " << count << " process(es)"
        << (backend.second.empty() ? "" : " (" + backend.second + ")") << '\n';
  for (const std::string& why : not_checked_because) out << kBar << "NOT CHECKED: " << why << '\n';
  if (const std::string sampled = sampled_warning(); !sampled.empty()) out << kBar << "SAMPLED: " << sampled << '\n';
  out << kBar << "HAZARDLAB CHECK SUMMARY: " << summary() << '\n';
}

nlohmann::json logged_finding_json(const LoggedFinding& lf) {
  return {{"finding", lf.finding},
          {"copy_stack", lf.copy_stack},
          {"access_stack", lf.access_stack},
          {"copy_python", lf.copy_python},
          {"access_python", lf.access_python},
          {"access_python_of_main_thread", lf.access_python_of_main_thread}};
}

nlohmann::json CheckReport::to_json() const {
  nlohmann::json processes_json = nlohmann::json::array();
  for (const ProcessLog& p : processes) {
    nlohmann::json findings = nlohmann::json::array();
    for (const LoggedFinding& lf : p.findings) findings.push_back(logged_finding_json(lf));
    nlohmann::json summary = nullptr;
    if (p.summary) summary = *p.summary;
    processes_json.push_back({{"pid", p.pid},
                              {"rank", p.rank ? nlohmann::json(*p.rank) : nlohmann::json(nullptr)},
                              {"made_watched_calls", made_watched_calls(p)},
                              {"parent", p.parent},
                              {"program", p.program},
                              {"watching", p.watching},
                              {"not_watching_because", p.not_watching_because},
                              {"notes", p.notes},
                              {"findings", findings},
                              {"summary", summary},
                              {"protection", p.protection.empty() ? nlohmann::json(nullptr)
                                                                  : nlohmann::json{{"backend", p.protection},
                                                                                   {"why", p.protection_why}}}});
  }
  return {{"schema", kCheckReportSchema},
          {"schema_version", kCheckReportSchemaVersion},
          {"hazardlab_version", hazardlab_version()},
          {"command", command},
          {"program_end", {{"signalled", end.signalled}, {"code", end.code}}},
          {"verdict", to_string(verdict)},
          {"findings", finding_count()},
          {"not_checked_because", not_checked_because},
          {"processes", processes_json}};
}

}  // namespace hazardlab::check
