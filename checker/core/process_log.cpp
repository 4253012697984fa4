#include "checker/core/process_log.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace hazardlab::check {

namespace {

// Each record kind's name and each key, declared once for the writer and the reader (the JSON report's
// finding uses the same keys, and adds the sentences the launcher derives).
constexpr const char* kProcess = "process";
constexpr const char* kNote = "note";
constexpr const char* kFinding = "finding";
constexpr const char* kSummary = "summary";
constexpr const char* kProgress = "progress";
constexpr const char* kProtection = "protection";
namespace key {
constexpr const char *type = "type", *pid = "pid", *parent = "parent", *program = "program", *watching = "watching",
                     *not_watching_because = "not_watching_because", *text = "text", *finding = "finding",
                     *copy_stack = "copy_stack", *access_stack = "access_stack", *copy_python = "copy_python",
                     *access_python = "access_python", *stats = "stats", *driver_calls = "driver_calls",
                     *access_python_of_main_thread = "access_python_of_main_thread", *backend = "backend",
                     *why = "why";
// A frame, a Python frame, a finding, its copy, a deviation it relies on, the counts.
constexpr const char *module = "module", *offset = "offset", *function = "function", *location = "location",
                     *file = "file", *line = "line";
constexpr const char *kind = "kind", *copy = "copy", *id = "id", *api = "api", *stream = "stream",
                     *stream_kind = "stream_kind", *host_end = "host_end", *host_begin = "host_begin",
                     *bytes = "bytes", *memory = "memory", *graph_node = "graph_node", *site = "site",
                     *address = "address", *access_site = "access_site", *thread = "thread",
                     *relies_on = "relies_on", *name = "name";
constexpr const char *copies_watched = "copies_watched", *pageable_d2h_async = "pageable_d2h_async",
                     *findings = "findings", *occurrences = "occurrences", *neighbour_faults = "neighbour_faults",
                     *copies_sampled_out = "copies_sampled_out";
}  // namespace key

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

Frame frame_from(const nlohmann::json& j) { return Frame{j.at(key::module), j.at(key::offset), "", ""}; }
PythonFrame python_frame_from(const nlohmann::json& j) {
  return PythonFrame{j.at(key::file), j.at(key::line), j.at(key::function)};
}

Finding finding_from(const nlohmann::json& j) {
  Finding f;
  f.kind = enum_from(j.at(key::kind).get<std::string>(), kFindingKinds);
  const nlohmann::json& c = j.at(key::copy);
  f.copy.id = c.at(key::id);
  f.copy.api = c.at(key::api);
  f.copy.stream = c.at(key::stream);
  f.copy.stream_kind = enum_from(c.at(key::stream_kind).get<std::string>(), kStreamKinds);
  f.copy.end = c.at(key::host_end) == "source" ? HostEnd::Source : HostEnd::Destination;
  f.copy.host_begin = c.at(key::host_begin);
  f.copy.bytes = c.at(key::bytes);
  f.copy.memory = enum_from(c.at(key::memory).get<std::string>(), kPinnedKinds);
  f.copy.graph_node = c.at(key::graph_node);
  f.copy.site = c.at(key::site);
  f.address = j.at(key::address);
  f.offset = j.at(key::offset);
  f.access_site = j.at(key::access_site);
  f.thread = j.at(key::thread);
  for (const auto& d : j.at(key::relies_on)) f.relies_on.push_back(deviation_named(d.at(key::name)));
  return f;
}

// What the log carries of a finding: the facts the reader reads back, no derived sentence.
nlohmann::json finding_facts(const Finding& f) {
  nlohmann::json relies = nlohmann::json::array();
  for (conformance::Deviation d : f.relies_on) relies.push_back({{key::name, conformance::deviation_info(d).name}});
  return {{key::kind, to_string(f.kind)},
          {key::copy,
           {{key::id, f.copy.id},
            {key::api, f.copy.api},
            {key::stream, f.copy.stream},
            {key::stream_kind, to_string(f.copy.stream_kind)},
            {key::host_end, f.copy.end == HostEnd::Source ? "source" : "destination"},
            {key::host_begin, f.copy.host_begin},
            {key::bytes, f.copy.bytes},
            {key::memory, to_string(f.copy.memory)},
            {key::graph_node, f.copy.graph_node},
            {key::site, f.copy.site}}},
          {key::address, f.address},
          {key::offset, f.offset},
          {key::access_site, f.access_site},
          {key::thread, f.thread},
          {key::relies_on, relies}};
}

}  // namespace

void to_json(nlohmann::json& j, const Frame& f) {
  j = {{key::module, f.module}, {key::offset, f.offset}};
  if (!f.symbol.empty()) j[key::function] = f.symbol;
  if (!f.location.empty()) j[key::location] = f.location;
}

void to_json(nlohmann::json& j, const PythonFrame& f) {
  j = {{key::file, f.file}, {key::line, f.line}, {key::function, f.function}};
}

void to_json(nlohmann::json& j, const Finding& f) {
  // The report's finding: the log's facts, each deviation with its summary and evidence, and the sentences.
  j = finding_facts(f);
  nlohmann::json& relies = j[key::relies_on];
  for (std::size_t i = 0; i < f.relies_on.size(); ++i) {
    const auto& info = conformance::deviation_info(f.relies_on[i]);
    relies[i]["summary"] = info.summary;
    relies[i]["evidence"] = info.evidence;
  }
  j["hazard"] = f.hazard();
  j["what"] = f.what();
  j["missing"] = f.missing();
  j["fix"] = f.smallest_fix();
}

void to_json(nlohmann::json& j, const CheckerStats& s) {
  j = {{key::copies_watched, s.copies_watched},     {key::pageable_d2h_async, s.pageable_d2h_async},
       {key::findings, s.findings},                 {key::occurrences, s.occurrences},
       {key::neighbour_faults, s.neighbour_faults}, {key::copies_sampled_out, s.copies_sampled_out}};
}

std::string header_line(std::int64_t pid, std::int64_t parent, const std::string& program, bool watching,
                        const std::string& not_watching_because) {
  return line({{key::type, kProcess},
               {key::pid, pid},
               {key::parent, parent},
               {key::program, program},
               {key::watching, watching},
               {key::not_watching_because, not_watching_because}});
}

std::string note_line(const std::string& note) { return line({{key::type, kNote}, {key::text, note}}); }

std::string finding_line(const LoggedFinding& f) {
  nlohmann::json j = {{key::type, kFinding},
                      {key::finding, finding_facts(f.finding)},
                      {key::copy_stack, f.copy_stack},
                      {key::access_stack, f.access_stack},
                      {key::copy_python, f.copy_python},
                      {key::access_python, f.access_python}};
  if (f.access_python_of_main_thread) j[key::access_python_of_main_thread] = true;
  return line(std::move(j));
}

std::string summary_line(const CheckerStats& stats) { return line({{key::type, kSummary}, {key::stats, stats}}); }

std::string protection_line(const std::string& backend, const std::string& why) {
  return line({{key::type, kProtection}, {key::backend, backend}, {key::why, why}});
}

std::string progress_line(std::uint64_t driver_calls) {
  return line({{key::type, kProgress}, {key::driver_calls, driver_calls}});
}

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
    const std::string type = j.value(key::type, "");
    if (type == kProcess) {
      log.pid = j.at(key::pid);
      log.parent = j.at(key::parent);
      log.program = j.at(key::program);
      log.watching = j.at(key::watching);
      log.not_watching_because = j.at(key::not_watching_because);
    } else if (type == kNote) {
      log.notes.push_back(j.at(key::text));
    } else if (type == kFinding) {
      LoggedFinding f{finding_from(j.at(key::finding)), {}, {}};
      for (const auto& fr : j.at(key::copy_stack)) f.copy_stack.push_back(frame_from(fr));
      for (const auto& fr : j.at(key::access_stack)) f.access_stack.push_back(frame_from(fr));
      for (const auto& fr : j.value(key::copy_python, nlohmann::json::array())) f.copy_python.push_back(python_frame_from(fr));
      for (const auto& fr : j.value(key::access_python, nlohmann::json::array()))
        f.access_python.push_back(python_frame_from(fr));
      f.access_python_of_main_thread = j.value(key::access_python_of_main_thread, false);
      log.findings.push_back(std::move(f));
    } else if (type == kProtection) {
      log.protection = j.at(key::backend);
      log.protection_why = j.at(key::why);
    } else if (type == kProgress) {
      log.driver_calls_watched = std::max<std::uint64_t>(log.driver_calls_watched, j.at(key::driver_calls));
    } else if (type == kSummary) {
      const nlohmann::json& s = j.at(key::stats);
      log.summary = CheckerStats{s.at(key::copies_watched),   s.at(key::pageable_d2h_async),
                                 s.at(key::findings),         s.at(key::occurrences),
                                 s.at(key::neighbour_faults), s.value(key::copies_sampled_out, 0ull)};
    } else {
      throw std::runtime_error(file.string() + ": unknown record type '" + type + "'");
    }
  }
  return log;
}

}  // namespace hazardlab::check
