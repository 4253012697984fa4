#include "checker/core/process_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <stdexcept>

#include "checker/core/process_log_keys.hpp"

namespace hazardlab::check {

using namespace process_log_format;

namespace {

// A text that is not UTF-8 (a module's path, a note naming one) is written with U+FFFD for each bad byte: the
// library never throws while it writes, and every line it writes is one the reader reads.
std::string line(nlohmann::json j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; }

nlohmann::json work_facts(const DeviceWorkFacts& w) {
  return {{key::api, w.api},
          {key::stream, w.stream},
          {key::stream_kind, to_string(w.stream_kind)},
          {key::work, to_string(w.work)},
          {key::access, to_string(w.access)},
          {key::kernel, w.kernel},
          {key::source, to_string(w.source)}};
}

// What the log carries of a finding: the facts the reader reads back, no derived sentence.
nlohmann::json finding_facts(const Finding& f) {
  nlohmann::json relies = nlohmann::json::array();
  for (conformance::Deviation d : f.relies_on) relies.push_back({{key::name, conformance::deviation_info(d).name}});
  nlohmann::json j = {{key::kind, to_string(f.kind)},
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
  if (f.copy.held_by_kernel()) j[key::copy][key::kernel] = f.copy.kernel;
  if (f.copy.queued_behind != QueuedBehindKernel::Nothing)
    j[key::copy][key::queued_behind] = to_string(f.copy.queued_behind);
  if (f.race)
    j[key::race] = {{key::earlier, work_facts(f.race->earlier)},
                    {key::later, work_facts(f.race->later)},
                    {key::python, f.race->python}};
  return j;
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
  j = {{key::copies_watched, s.copies_watched},
       {key::pageable_d2h_async, s.pageable_d2h_async},
       {key::findings, s.findings},
       {key::occurrences, s.occurrences},
       {key::neighbour_faults, s.neighbour_faults},
       {key::copies_sampled_out, s.copies_sampled_out}};
}

std::string header_line(std::int64_t pid, std::int64_t parent, const std::string& program, bool watching,
                        const std::string& not_watching_because, const std::optional<std::string>& rank) {
  nlohmann::json j = {{key::type, kProcess},     {key::pid, pid},
                      {key::parent, parent},     {key::program, program},
                      {key::watching, watching}, {key::not_watching_because, not_watching_because}};
  if (rank) j[key::rank] = *rank;
  return line(std::move(j));
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

}  // namespace hazardlab::check
