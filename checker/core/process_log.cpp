#include "checker/core/process_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
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
                     *why = "why", *rank = "rank";
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

// A text that is not UTF-8 (a module's path, a note naming one) is written with U+FFFD for each bad byte: the
// library never throws while it writes, and every line it writes is one the reader reads.
std::string line(nlohmann::json j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}


constexpr FindingKind kFindingKinds[] = {FindingKind::HostWroteCopySource, FindingKind::HostReadCopyDestination,
                                         FindingKind::HostWroteCopyDestination, FindingKind::FreedWhileCopyOwns,
                                         FindingKind::UnregisteredWhileCopyOwns};
constexpr PinnedKind kPinnedKinds[] = {PinnedKind::HostAlloc, PinnedKind::WriteCombined, PinnedKind::Registered};

constexpr conformance::StreamKind kStreamKinds[] = {conformance::StreamKind::Legacy, conformance::StreamKind::Blocking,
                                                    conformance::StreamKind::NonBlocking};


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
                        const std::string& not_watching_because, const std::optional<std::string>& rank) {
  nlohmann::json j = {{key::type, kProcess},
                      {key::pid, pid},
                      {key::parent, parent},
                      {key::program, program},
                      {key::watching, watching},
                      {key::not_watching_because, not_watching_because}};
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

namespace {

// A line longer than this is no line the injected library writes (a finding's two stacks are a few KiB): a
// file of random bytes or zeros is refused here, not read into memory whole.
constexpr std::size_t kLongestLine = 1u << 20;

// One JSON object of a line, read key by key against the schema: each read names the key's path when the value
// is missing or of another type, and a key the schema does not have is refused when the object is done.
class Fields {
 public:
  Fields(const nlohmann::json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) fail("expected an object");
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw ProcessLogError((where_.empty() ? std::string() : where_ + ": ") + what);
  }
  bool has(const char* k) const { return j_.contains(k); }
  const nlohmann::json& at(const char* k) {
    const auto it = j_.find(k);
    if (it == j_.end()) fail(std::string("no \"") + k + "\"");
    read_.insert(k);
    return *it;
  }
  Fields object(const char* k) { return Fields(at(k), path(k)); }
  std::string text(const char* k) {
    const nlohmann::json& v = at(k);
    if (!v.is_string()) Fields::fail_at(path(k), "expected a string");
    return v.get<std::string>();
  }
  std::uint64_t whole(const char* k) {
    const nlohmann::json& v = at(k);
    if (!v.is_number_unsigned()) Fields::fail_at(path(k), "expected a whole number >= 0");
    return v.get<std::uint64_t>();
  }
  std::int64_t integer(const char* k, std::int64_t min) {
    const nlohmann::json& v = at(k);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) ||
        v.get<std::int64_t>() < min)
      Fields::fail_at(path(k), "expected a whole number >= " + std::to_string(min));
    return v.get<std::int64_t>();
  }
  bool flag(const char* k) {
    const nlohmann::json& v = at(k);
    if (!v.is_boolean()) Fields::fail_at(path(k), "expected true or false");
    return v.get<bool>();
  }
  // Each element of the array `k` (absent: none, where the schema lets it be left out), read by `each`.
  template <class Each>
  void array(const char* k, bool optional, Each&& each) {
    if (optional && !has(k)) return;
    const nlohmann::json& v = at(k);
    if (!v.is_array()) Fields::fail_at(path(k), "expected an array");
    for (std::size_t i = 0; i < v.size(); ++i) each(Fields(v[i], path(k) + "[" + std::to_string(i) + "]"));
  }
  template <class Enum, std::size_t N>
  Enum word(const char* k, const Enum (&all)[N]) {
    const std::string value = text(k);
    std::string allowed;
    for (Enum e : all) {
      if (to_string(e) == value) return e;
      allowed += (allowed.empty() ? "" : ", ") + std::string(to_string(e));
    }
    Fields::fail_at(path(k), "'" + value + "' is not one of " + allowed);
  }
  // Every key was read: one the schema does not have is a slip or another file, never ignored.
  void done() const {
    for (const auto& [k, v] : j_.items())
      if (!read_.count(k)) fail("unknown key \"" + k + "\"");
  }

 private:
  std::string path(const char* k) const { return where_.empty() ? std::string(k) : where_ + "." + k; }
  [[noreturn]] static void fail_at(const std::string& where, const std::string& what) {
    throw ProcessLogError(where + ": " + what);
  }
  const nlohmann::json& j_;
  std::string where_;
  std::set<std::string> read_;
};

Frame frame_from(Fields f) {
  Frame frame{f.text(key::module), f.whole(key::offset), "", ""};
  if (f.has(key::function)) frame.symbol = f.text(key::function);
  if (f.has(key::location)) frame.location = f.text(key::location);
  f.done();
  return frame;
}

PythonFrame python_frame_from(Fields f) {
  const std::int64_t line = f.integer(key::line, 0);
  if (line > INT32_MAX) f.fail("line: expected a line number");
  PythonFrame frame{f.text(key::file), static_cast<int>(line), f.text(key::function)};
  f.done();
  return frame;
}

Finding finding_from(Fields j) {
  Finding f;
  f.kind = j.word(key::kind, kFindingKinds);
  Fields c = j.object(key::copy);
  f.copy.id = c.whole(key::id);
  f.copy.api = c.text(key::api);
  f.copy.stream = c.whole(key::stream);
  f.copy.stream_kind = c.word(key::stream_kind, kStreamKinds);
  const std::string end = c.text(key::host_end);
  if (end != "source" && end != "destination") c.fail("host_end: '" + end + "' is not one of source, destination");
  f.copy.end = end == "source" ? HostEnd::Source : HostEnd::Destination;
  f.copy.host_begin = c.whole(key::host_begin);
  f.copy.bytes = c.whole(key::bytes);
  f.copy.memory = c.word(key::memory, kPinnedKinds);
  f.copy.graph_node = c.flag(key::graph_node);
  f.copy.site = c.whole(key::site);
  c.done();
  f.address = j.whole(key::address);
  f.offset = j.whole(key::offset);
  f.access_site = j.whole(key::access_site);
  f.thread = j.whole(key::thread);
  j.array(key::relies_on, false, [&](Fields d) {
    const std::string name = d.text(key::name);
    d.done();
    for (const auto& known : conformance::all_deviations())
      if (known.name == name) return f.relies_on.push_back(known.deviation);
    d.fail("name: '" + name + "' is no deviation of the conformance model");
  });
  j.done();
  return f;
}

// One whole line, read into `log`.
void read_record(const std::string& text, ProcessLog& log, bool& has_header) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw ProcessLogError("not a JSON object (not a process log, or a line cut short)");
  Fields r(j, "");
  const std::string type = r.text(key::type);
  if (type != kProcess && !has_header)
    throw ProcessLogError("a \"" + type + "\" record before the process's header (a process log begins with it)");
  if (type == kProcess) {
    if (has_header) throw ProcessLogError("a second process header (one log is one process's)");
    has_header = true;
    log.pid = r.integer(key::pid, 1);
    log.parent = r.integer(key::parent, 0);
    log.program = r.text(key::program);
    log.watching = r.flag(key::watching);
    log.not_watching_because = r.text(key::not_watching_because);
    if (r.has(key::rank)) log.rank = r.text(key::rank);
  } else if (type == kNote) {
    log.notes.push_back(r.text(key::text));
  } else if (type == kFinding) {
    LoggedFinding f{finding_from(r.object(key::finding)), {}, {}};
    r.array(key::copy_stack, false, [&](Fields fr) { f.copy_stack.push_back(frame_from(std::move(fr))); });
    r.array(key::access_stack, false, [&](Fields fr) { f.access_stack.push_back(frame_from(std::move(fr))); });
    r.array(key::copy_python, true, [&](Fields fr) { f.copy_python.push_back(python_frame_from(std::move(fr))); });
    r.array(key::access_python, true, [&](Fields fr) { f.access_python.push_back(python_frame_from(std::move(fr))); });
    if (r.has(key::access_python_of_main_thread)) f.access_python_of_main_thread = r.flag(key::access_python_of_main_thread);
    log.findings.push_back(std::move(f));
  } else if (type == kProtection) {
    log.protection = r.text(key::backend);
    log.protection_why = r.text(key::why);
  } else if (type == kProgress) {
    log.driver_calls_watched = std::max(log.driver_calls_watched, r.whole(key::driver_calls));
  } else if (type == kSummary) {
    Fields s = r.object(key::stats);
    CheckerStats stats{s.whole(key::copies_watched), s.whole(key::pageable_d2h_async), s.whole(key::findings),
                       s.whole(key::occurrences), s.whole(key::neighbour_faults), 0};
    if (s.has(key::copies_sampled_out)) stats.copies_sampled_out = s.whole(key::copies_sampled_out);
    s.done();
    log.summary = stats;
  } else {
    throw ProcessLogError("type: '" + type + "' is not one of process, note, finding, protection, progress, summary");
  }
  r.done();
}

std::string kind_of(mode_t mode) {
  return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
         : S_ISDIR(mode) ? "a folder" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

}  // namespace

std::string process_log_identity(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return std::to_string(static_cast<unsigned long long>(st.st_dev)) + ":" +
         std::to_string(static_cast<unsigned long long>(st.st_ino));
}

ProcessLog read_process_log(const std::filesystem::path& file) {
  const std::string name = file.string();
  // Before anything is read: a FIFO would block for ever, a device never end.
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0)
    throw ProcessLogError(name + ": cannot be read (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) throw ProcessLogError(name + ": is " + kind_of(st.st_mode) + ", not a process log");
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw ProcessLogError(name + ": cannot be read (" + std::strerror(errno) + ")");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))  // replaced between the two looks
    throw ProcessLogError(name + ": is not a regular file, not a process log");

  ProcessLog log;
  bool has_header = false;
  std::size_t line_number = 0;
  std::string pending;  // the bytes of the line being assembled
  char buffer[1 << 16];
  const auto whole_line = [&](const std::string& text) {
    ++line_number;
    try {
      read_record(text, log, has_header);
    } catch (const ProcessLogError& e) {
      throw ProcessLogError(name + ": line " + std::to_string(line_number) + ": " + e.what());
    }
  };
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ProcessLogError(name + ": cannot be read (" + std::strerror(errno) + ")");
    if (n == 0) break;
    std::size_t start = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
      if (buffer[i] != '\n') continue;
      pending.append(buffer + start, i - start);
      whole_line(pending);
      pending.clear();
      start = i + 1;
    }
    pending.append(buffer + start, static_cast<std::size_t>(n) - start);
    if (pending.size() > kLongestLine)
      throw ProcessLogError(name + ": line " + std::to_string(line_number + 1) + ": longer than " +
                            std::to_string(kLongestLine) + " bytes with no end: not a process log");
  }
  if (!has_header) {
    throw ProcessLogError(name + (line_number == 0 && pending.empty()
                                      ? ": is empty: no process header (a process log begins with it)"
                                      : ": has no process header (a process log begins with it)"));
  }
  if (!pending.empty())
    log.notes.push_back("a line of " + file.filename().string() + " was cut short (the process ended while writing it)");
  return log;
}

}  // namespace hazardlab::check
