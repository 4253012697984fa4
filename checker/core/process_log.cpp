#include "checker/core/process_log.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace hazardlab::check {

namespace {

// Each record kind's name, declared once for the writer and the reader.
constexpr const char* kProcess = "process";
constexpr const char* kNote = "note";
constexpr const char* kFinding = "finding";
constexpr const char* kSummary = "summary";
constexpr const char* kProgress = "progress";
constexpr const char* kDriverCalls = "driver_calls";

std::string line(nlohmann::json j) { return j.dump() + "\n"; }

template <class Enum, std::size_t N>
Enum enum_from(const std::string& text, const Enum (&all)[N]) {
  for (Enum e : all)
    if (to_string(e) == text) return e;
  throw std::invalid_argument("unknown value '" + text + "'");
}

constexpr FindingKind kFindingKinds[] = {FindingKind::HostWroteCopySource, FindingKind::HostReadCopyDestination,
                                         FindingKind::HostWroteCopyDestination, FindingKind::FreedWhileCopyOwns,
                                         FindingKind::UnregisteredWhileCopyOwns};
constexpr PinnedKind kPinnedKinds[] = {PinnedKind::HostAlloc, PinnedKind::WriteCombined, PinnedKind::Registered};

constexpr conformance::StreamKind kStreamKinds[] = {conformance::StreamKind::Legacy, conformance::StreamKind::Blocking,
                                                    conformance::StreamKind::NonBlocking};

conformance::Deviation deviation_named(const std::string& name) {
  for (const auto& d : conformance::all_deviations())
    if (d.name == name) return d.deviation;
  throw std::invalid_argument("unknown deviation '" + name + "'");
}

Frame frame_from(const nlohmann::json& j) { return Frame{j.at("module"), j.at("offset"), "", ""}; }
PythonFrame python_frame_from(const nlohmann::json& j) { return PythonFrame{j.at("file"), j.at("line"), j.at("function")}; }

Finding finding_from(const nlohmann::json& j) {
  Finding f;
  f.kind = enum_from(j.at("kind").get<std::string>(), kFindingKinds);
  const nlohmann::json& c = j.at("copy");
  f.copy.id = c.at("id");
  f.copy.api = c.at("api");
  f.copy.stream = c.at("stream");
  f.copy.stream_kind = enum_from(c.at("stream_kind").get<std::string>(), kStreamKinds);
  f.copy.end = c.at("host_end") == "source" ? HostEnd::Source : HostEnd::Destination;
  f.copy.host_begin = c.at("host_begin");
  f.copy.bytes = c.at("bytes");
  f.copy.memory = enum_from(c.at("memory").get<std::string>(), kPinnedKinds);
  f.copy.graph_node = c.at("graph_node");
  f.copy.site = c.at("site");
  f.address = j.at("address");
  f.offset = j.at("offset");
  f.access_site = j.at("access_site");
  f.thread = j.at("thread");
  for (const auto& d : j.at("relies_on")) f.relies_on.push_back(deviation_named(d.at("name")));
  return f;
}

}  // namespace

void to_json(nlohmann::json& j, const Frame& f) {
  j = {{"module", f.module}, {"offset", f.offset}};
  if (!f.symbol.empty()) j["function"] = f.symbol;
  if (!f.location.empty()) j["location"] = f.location;
}

void to_json(nlohmann::json& j, const PythonFrame& f) {
  j = {{"file", f.file}, {"line", f.line}, {"function", f.function}};
}

void to_json(nlohmann::json& j, const Finding& f) {
  nlohmann::json relies = nlohmann::json::array();
  for (conformance::Deviation d : f.relies_on) {
    const auto& info = conformance::deviation_info(d);
    relies.push_back({{"name", info.name}, {"summary", info.summary}, {"evidence", info.evidence}});
  }
  j = {{"kind", to_string(f.kind)},
       {"hazard", f.hazard()},
       {"what", f.what()},
       {"missing", f.missing()},
       {"fix", f.smallest_fix()},
       {"copy",
        {{"id", f.copy.id},
         {"api", f.copy.api},
         {"stream", f.copy.stream},
         {"stream_kind", to_string(f.copy.stream_kind)},
         {"host_end", f.copy.end == HostEnd::Source ? "source" : "destination"},
         {"host_begin", f.copy.host_begin},
         {"bytes", f.copy.bytes},
         {"memory", to_string(f.copy.memory)},
         {"graph_node", f.copy.graph_node},
         {"site", f.copy.site}}},
       {"address", f.address},
       {"offset", f.offset},
       {"access_site", f.access_site},
       {"thread", f.thread},
       {"relies_on", relies}};
}

void to_json(nlohmann::json& j, const CheckerStats& s) {
  j = {{"copies_watched", s.copies_watched},   {"pageable_d2h_async", s.pageable_d2h_async},
       {"findings", s.findings},               {"occurrences", s.occurrences},
       {"neighbour_faults", s.neighbour_faults}, {"copies_sampled_out", s.copies_sampled_out}};
}

std::string header_line(std::int64_t pid, std::int64_t parent, const std::string& program, bool watching,
                        const std::string& not_watching_because) {
  return line({{"type", kProcess},
               {"pid", pid},
               {"parent", parent},
               {"program", program},
               {"watching", watching},
               {"not_watching_because", not_watching_because}});
}

std::string note_line(const std::string& note) { return line({{"type", kNote}, {"text", note}}); }

std::string finding_line(const LoggedFinding& f) {
  return line({{"type", kFinding},
               {"finding", f.finding},
               {"copy_stack", f.copy_stack},
               {"access_stack", f.access_stack},
               {"copy_python", f.copy_python},
               {"access_python", f.access_python}});
}

std::string summary_line(const CheckerStats& stats) { return line({{"type", kSummary}, {"stats", stats}}); }

std::string progress_line(std::uint64_t driver_calls) { return line({{"type", kProgress}, {kDriverCalls, driver_calls}}); }

ProcessLog read_process_log(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  ProcessLog log;
  std::string text;
  while (std::getline(in, text)) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      log.notes.push_back("a line of " + file.filename().string() + " was cut short (the process ended while writing it)");
      continue;
    }
    const std::string type = j.value("type", "");
    if (type == kProcess) {
      log.pid = j.at("pid");
      log.parent = j.at("parent");
      log.program = j.at("program");
      log.watching = j.at("watching");
      log.not_watching_because = j.at("not_watching_because");
    } else if (type == kNote) {
      log.notes.push_back(j.at("text"));
    } else if (type == kFinding) {
      LoggedFinding f{finding_from(j.at("finding")), {}, {}};
      for (const auto& fr : j.at("copy_stack")) f.copy_stack.push_back(frame_from(fr));
      for (const auto& fr : j.at("access_stack")) f.access_stack.push_back(frame_from(fr));
      for (const auto& fr : j.value("copy_python", nlohmann::json::array())) f.copy_python.push_back(python_frame_from(fr));
      for (const auto& fr : j.value("access_python", nlohmann::json::array()))
        f.access_python.push_back(python_frame_from(fr));
      log.findings.push_back(std::move(f));
    } else if (type == kProgress) {
      log.driver_calls_watched = std::max<std::uint64_t>(log.driver_calls_watched, j.at(kDriverCalls));
    } else if (type == kSummary) {
      const nlohmann::json& s = j.at("stats");
      log.summary = CheckerStats{s.at("copies_watched"), s.at("pageable_d2h_async"), s.at("findings"),
                                 s.at("occurrences"), s.at("neighbour_faults"), s.value("copies_sampled_out", 0ull)};
    } else {
      throw std::runtime_error(file.string() + ": unknown record type '" + type + "'");
    }
  }
  return log;
}

}  // namespace hazardlab::check
