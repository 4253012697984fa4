// The process log's one reader: strict (every line checked against the writer's schema, each error naming the
// file, the line and what is wrong) and streaming (a line at a time, in memory bounded by what it keeps).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>

#include "checker/core/process_log.hpp"
#include "checker/core/process_log_fields.hpp"
#include "checker/core/process_log_keys.hpp"

namespace hazardlab::check {

using namespace process_log_format;

namespace {

// A line longer than this is no line the injected library writes (a finding's two stacks are a few KiB): a
// file of random bytes or zeros is refused here, not read into memory whole.
constexpr std::size_t kLongestLine = 1u << 20;

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

DeviceWorkFacts work_from(Fields w) {
  DeviceWorkFacts facts;
  facts.api = w.text(key::api);
  facts.stream = w.whole(key::stream);
  facts.stream_kind = w.word(key::stream_kind, kStreamKinds);
  facts.work = w.word(key::work, kDeviceWorkKinds);
  facts.access = w.word(key::access, kDeviceAccessKinds);
  facts.kernel = w.text(key::kernel);
  facts.source = w.word(key::source, kRangeSources);
  w.done();
  return facts;
}

bool same_work(const DeviceWorkFacts& a, const DeviceWorkFacts& b) {
  return a.api == b.api && a.stream == b.stream && a.stream_kind == b.stream_kind && a.work == b.work &&
         a.access == b.access && a.kernel == b.kernel;
}

// What no race can be, refused as the reader refuses any record its writer cannot have written: two reads (neither
// item changes the bytes), or one item with itself (one site's work on one created stream, which orders it; the
// handles 0, 1 and 2 are left alone, since two threads' per-thread default streams share them).
void refuse_impossible_race(const Finding& f, Fields& r) {
  const DeviceRace& race = *f.race;
  if (race.earlier.access == DeviceAccessKind::Read && race.later.access == DeviceAccessKind::Read)
    r.fail("earlier and later both read: two reads do not race (a race needs a write or a may-write)");
  if (f.copy.site == f.access_site && same_work(race.earlier, race.later) && race.earlier.stream > 2)
    r.fail("earlier and later are one item (the same site, call and stream): work does not race with itself");
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
  if (c.has(key::kernel)) f.copy.kernel = c.text(key::kernel);
  if (c.has(key::queued_behind)) f.copy.queued_behind = c.word(key::queued_behind, kQueuedBehindKernel);
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
  // A race between device work has both items, and only it has them.
  if (f.kind == FindingKind::DeviceWorkRace) {
    Fields r = j.object(key::race);
    f.race = DeviceRace{work_from(r.object(key::earlier)), work_from(r.object(key::later)), r.flag(key::python)};
    refuse_impossible_race(f, r);
    r.done();
  } else if (j.has(key::race)) {
    j.fail("race: only a " + std::string(to_string(FindingKind::DeviceWorkRace)) + " finding has one");
  }
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
    if (r.has(key::access_python_of_main_thread))
      f.access_python_of_main_thread = r.flag(key::access_python_of_main_thread);
    log.findings.push_back(std::move(f));
  } else if (type == kProtection) {
    log.protection = r.text(key::backend);
    log.protection_why = r.text(key::why);
  } else if (type == kProgress) {
    log.driver_calls_watched = std::max(log.driver_calls_watched, r.whole(key::driver_calls));
  } else if (type == kSummary) {
    Fields s = r.object(key::stats);
    CheckerStats stats{s.whole(key::copies_watched), s.whole(key::pageable_d2h_async), s.whole(key::findings),
                       s.whole(key::occurrences),    s.whole(key::neighbour_faults),   0};
    if (s.has(key::copies_sampled_out)) stats.copies_sampled_out = s.whole(key::copies_sampled_out);
    s.done();
    log.summary = stats;
  } else {
    throw ProcessLogError("type: '" + type + "' is not one of process, note, finding, protection, progress, summary");
  }
  r.done();
}

}  // namespace

ProcessLog read_process_log(const std::filesystem::path& file) {
  const std::string name = file.string();
  const int fd = open_log_file(file);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};

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
    log.notes.push_back("a line of " + file.filename().string() +
                        " was cut short (the process ended while writing it)");
  return log;
}

}  // namespace hazardlab::check
