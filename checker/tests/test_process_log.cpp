// The process log's one reader: every line checked against the schema the writer writes, errors that name the
// file, the line and what is wrong, FIFOs and devices refused before anything is read, and a generator of
// corrupted logs (rapidcheck) that finds the reader ending in nothing but a log or that error.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checker/core/process_log.hpp"

namespace fs = std::filesystem;
using namespace hazardlab::check;
using hazardlab::conformance::StreamKind;

namespace {

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("hazardlab-process-log-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

fs::path written(const std::string& name, const std::string& text) {
  const fs::path file = fresh(name);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  return file;
}

LoggedFinding a_finding(std::uint64_t id = 1) {
  Finding f;
  f.kind = FindingKind::HostWroteCopySource;
  f.copy = CopyFacts{id, "cuMemcpyHtoDAsync", 0, StreamKind::Legacy, HostEnd::Source, 0x1000, 64,
                     PinnedKind::HostAlloc, false, 7};
  f.address = 0x1008;
  f.offset = 8;
  f.access_site = 9;
  return LoggedFinding{f, {{"/bin/p", 16, "", ""}}, {{"/bin/p", 32, "", ""}}, {{"train.py", 3, "step"}}, {}};
}

std::string header() { return header_line(42, 1, "p", true, ""); }

// The message a log refused with; "" when it was read.
std::string refusal(const std::string& text) {
  try {
    (void)read_process_log(written("log.jsonl", text));
    return "";
  } catch (const ProcessLogError& e) {
    return e.what();
  }
}

}  // namespace

TEST(ProcessLog, WhatTheWriterWritesIsReadBack) {
  const ProcessLog log = read_process_log(
      written("log.jsonl", header_line(42, 1, "p", true, "", "3") + protection_line("mprotect", "asked for") +
                               note_line("n") + finding_line(a_finding(1)) + finding_line(a_finding(2)) +
                               progress_line(8) + summary_line(CheckerStats{4, 0, 2, 2, 0, 1})));
  EXPECT_EQ(log.pid, 42);
  EXPECT_EQ(log.rank, std::optional<std::string>("3"));
  EXPECT_EQ(log.findings.size(), 2u);
  EXPECT_EQ(log.findings[1].finding.copy.id, 2u);
  EXPECT_EQ(log.findings[0].copy_python.at(0).file, "train.py");
  EXPECT_EQ(log.notes, std::vector<std::string>{"n"});
  EXPECT_EQ(log.protection, "mprotect");
  EXPECT_EQ(log.driver_calls_watched, 8u);
  ASSERT_TRUE(log.summary);
  EXPECT_EQ(log.summary->copies_sampled_out, 1u);
  EXPECT_FALSE(read_process_log(written("log.jsonl", header())).rank);  // no rank: absent
}

TEST(ProcessLog, ABadLineIsRefusedNamingTheFileTheLineAndWhatIsWrong) {
  const std::string h = header();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "log.jsonl: is empty: no process header"},
      {note_line("n"), "log.jsonl: line 1: a \"note\" record before the process's header"},
      {h + h, "log.jsonl: line 2: a second process header"},
      {h + "garbage\n", "log.jsonl: line 2: not a JSON object"},
      {h + "[1,2]\n", "log.jsonl: line 2: expected an object"},
      {h + "{\"type\":\"nonsense\"}\n", "line 2: type: 'nonsense' is not one of"},
      {h + "{\"type\":\"progress\",\"driver_calls\":-1}\n", "line 2: driver_calls: expected a whole number >= 0"},
      {h + "{\"type\":\"progress\",\"driver_calls\":1.5}\n", "line 2: driver_calls: expected a whole number >= 0"},
      {h + "{\"type\":\"progress\",\"driver_calls\":1,\"extra\":2}\n", "line 2: unknown key \"extra\""},
      {h + "{\"type\":\"note\"}\n", "line 2: no \"text\""},
      {"{\"type\":\"process\",\"pid\":0,\"parent\":0,\"program\":\"p\",\"watching\":true,\"not_watching_because\":\"\"}\n",
       "line 1: pid: expected a whole number >= 1"},
      {"{\"type\":\"process\",\"pid\":5,\"parent\":0,\"program\":\"p\",\"watching\":true,\"not_watching_because\":\"\","
       "\"rank\":3}\n",
       "line 1: rank: expected a string"},
      {h + std::string(2u << 20, 'x'), "line 2: longer than"},
  };
  for (const auto& [text, says] : cases) {
    const std::string why = refusal(text);
    EXPECT_NE(why.find(says), std::string::npos) << "'" << text.substr(0, 200) << "' gave: " << why;
  }
  // A finding's nested value names its path.
  std::string finding = finding_line(a_finding());
  finding.replace(finding.find("\"bytes\":64"), 10, "\"bytes\":\"64\"");
  EXPECT_NE(refusal(h + finding).find("line 2: finding.copy.bytes: expected a whole number >= 0"), std::string::npos)
      << refusal(h + finding);
  // A last line without its newline is the process still writing it (or dying): left out and noted, not an error.
  const ProcessLog cut = read_process_log(written("log.jsonl", h + finding_line(a_finding()).substr(0, 30)));
  EXPECT_TRUE(cut.findings.empty());
  ASSERT_EQ(cut.notes.size(), 1u);
  EXPECT_NE(cut.notes[0].find("cut short"), std::string::npos);
}

TEST(ProcessLog, AFifoOrADeviceIsRefusedBeforeAnythingIsRead) {
  const fs::path fifo = fresh("fifo");
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opened for reading with no writer, a FIFO would block this test for ever.
  for (const fs::path& file : {fifo, fs::path("/dev/zero"), fs::path("/dev/null"), fifo.parent_path()}) {
    try {
      (void)read_process_log(file);
      ADD_FAILURE() << file << " was read";
    } catch (const ProcessLogError& e) {
      EXPECT_NE(std::string(e.what()).find("not a process log"), std::string::npos) << e.what();
    }
  }
}

// A valid log, then one corruption of it (a byte changed, dropped or added, a line doubled, dropped or moved, the
// file cut anywhere): the reader returns a log or refuses with ProcessLogError, nothing else, and what it returns
// never holds more findings than were written. Bounded: a few hundred small logs, well under a second.
RC_GTEST_PROP(ProcessLog, ACorruptedLogIsReadOrRefusedNeverAnythingElse, ()) {
  std::vector<std::string> lines{header_line(*rc::gen::inRange<std::int64_t>(1, 1 << 20), 1, "p",
                                             *rc::gen::arbitrary<bool>(), "")};
  const int records = *rc::gen::inRange(0, 8);
  std::size_t findings_written = 0;
  for (int i = 0; i < records; ++i) {
    switch (*rc::gen::inRange(0, 5)) {
      case 0: lines.push_back(note_line(*rc::gen::arbitrary<std::string>())); break;
      case 1: lines.push_back(finding_line(a_finding(static_cast<std::uint64_t>(i) + 1))); ++findings_written; break;
      case 2: lines.push_back(progress_line(*rc::gen::arbitrary<std::uint32_t>())); break;
      case 3: lines.push_back(protection_line("mprotect", *rc::gen::arbitrary<std::string>())); break;
      default: lines.push_back(summary_line(CheckerStats{1, 2, 3, 4, 5, 6})); break;
    }
  }
  std::string text;
  for (const std::string& l : lines) text += l;
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, text.size());
  const std::size_t line = *rc::gen::inRange<std::size_t>(0, lines.size());
  switch (*rc::gen::inRange(0, 6)) {
    case 0: text[at] = *rc::gen::arbitrary<char>(); break;
    case 1: text.erase(at, 1); break;
    case 2: text.insert(at, *rc::gen::arbitrary<std::string>()); break;
    case 3: text.resize(at); break;
    case 4: text += lines[line]; break;  // a line twice (a second header, when it is the first)
    default: text = lines[line] + text; break;
  }
  try {
    const ProcessLog log = read_process_log(written("fuzzed.jsonl", text));
    RC_ASSERT(log.pid >= 1);
    RC_ASSERT(log.findings.size() <= findings_written + 1);
  } catch (const ProcessLogError&) {
  }
}

// A kernel's hold on mapped pinned memory is read back with the kernel's name; a copy's has none.
TEST(ProcessLog, AKernelsHoldIsReadBackWithItsName) {
  LoggedFinding held = a_finding();
  held.finding.copy.api = "cuLaunchKernel";
  held.finding.copy.kernel = "scale";
  const ProcessLog log = read_process_log(written("log.jsonl", header() + finding_line(held) + finding_line(a_finding(2))));
  ASSERT_EQ(log.findings.size(), 2u);
  EXPECT_EQ(log.findings[0].finding.copy.kernel, "scale");
  EXPECT_EQ(log.findings[0].finding.hazard(), "mapped-memory-visibility");
  EXPECT_EQ(log.findings[1].finding.copy.kernel, "");
  EXPECT_EQ(finding_line(a_finding()).find("\"kernel\""), std::string::npos);  // a copy's line is as before
}

// A kernel's hold on managed memory is read back with its memory and what was queued behind the kernel, which
// name its hazard; a line without `queued_behind` had nothing queued.
TEST(ProcessLog, AKernelsHoldOnManagedMemoryIsReadBackWithWhatWasQueuedBehindIt) {
  LoggedFinding prefetched = a_finding();
  prefetched.finding.copy.api = "cuLaunchKernel";
  prefetched.finding.copy.kernel = "fill";
  prefetched.finding.copy.memory = PinnedKind::Managed;
  prefetched.finding.copy.queued_behind = QueuedBehindKernel::PrefetchToHost;
  LoggedFinding plain = prefetched;
  plain.finding.copy.queued_behind = QueuedBehindKernel::Nothing;
  const ProcessLog log = read_process_log(written("log.jsonl", header() + finding_line(prefetched) + finding_line(plain)));
  ASSERT_EQ(log.findings.size(), 2u);
  EXPECT_EQ(log.findings[0].finding.copy.memory, PinnedKind::Managed);
  EXPECT_EQ(log.findings[0].finding.hazard(), "managed-prefetch-not-a-fence");
  EXPECT_EQ(log.findings[1].finding.hazard(), "managed-host-access-during-kernel");
  EXPECT_EQ(finding_line(plain).find("queued_behind"), std::string::npos);
}

// A race between device work carries both items, and only such a finding may carry them.
TEST(ProcessLog, ARaceBetweenDeviceWorkIsReadBackWithBothItems) {
  LoggedFinding race = a_finding();
  race.finding.kind = FindingKind::DeviceWorkRace;
  race.finding.race = DeviceRace{{"cuLaunchKernel", 0, StreamKind::Legacy, DeviceWorkKind::Kernel, DeviceAccessKind::Write, "fill"},
                                 {"cuMemcpyDtoHAsync", 0x55, StreamKind::NonBlocking, DeviceWorkKind::Copy,
                                  DeviceAccessKind::Read, ""},
                                 true};
  const ProcessLog log = read_process_log(written("log.jsonl", header() + finding_line(race)));
  ASSERT_EQ(log.findings.size(), 1u);
  const Finding& f = log.findings[0].finding;
  ASSERT_TRUE(f.race);
  EXPECT_EQ(f.race->earlier.kernel, "fill");
  EXPECT_EQ(f.race->later.stream_kind, StreamKind::NonBlocking);
  EXPECT_EQ(f.race->later.access, DeviceAccessKind::Read);
  EXPECT_TRUE(f.race->python);
  EXPECT_EQ(f.hazard(), "legacy-stream-nonblocking-consumer");
  EXPECT_NE(f.smallest_fix().find("wait_stream"), std::string::npos);

  // The same facts on a host finding are refused, as is a race without them.
  std::string line = finding_line(race);
  const std::string kind = "\"device-work-race\"";
  line.replace(line.find(kind), kind.size(), "\"host-wrote-copy-source\"");
  EXPECT_NE(refusal(header() + line).find("race: only a device-work-race finding has one"), std::string::npos);
  LoggedFinding bare = race;
  bare.finding.race.reset();
  EXPECT_NE(refusal(header() + finding_line(bare)).find("no \"race\""), std::string::npos);
}

// Two reads never race, and one item of work on a created stream never races with itself: such a record is no
// finding the writer makes, and is refused, naming what is wrong.
TEST(ProcessLog, ARaceOfTwoReadsOrOfOneItemWithItselfIsRefused) {
  const DeviceWorkFacts read{"cuMemcpyDtoHAsync", 0x55, StreamKind::NonBlocking, DeviceWorkKind::Copy,
                             DeviceAccessKind::Read, ""};
  LoggedFinding race = a_finding();
  race.finding.kind = FindingKind::DeviceWorkRace;
  race.finding.race = DeviceRace{read, read, false};
  race.finding.race->earlier.stream = 0x66;
  EXPECT_NE(refusal(header() + finding_line(race)).find("two reads do not race"), std::string::npos);

  DeviceWorkFacts write = read;
  write.access = DeviceAccessKind::Write;
  race.finding.race = DeviceRace{write, write, false};
  race.finding.access_site = race.finding.copy.site;
  EXPECT_NE(refusal(header() + finding_line(race)).find("work does not race with itself"), std::string::npos);
  // The same facts from two sites, or on the legacy stream (which two threads' default streams may share), are read.
  race.finding.access_site = race.finding.copy.site + 1;
  EXPECT_EQ(refusal(header() + finding_line(race)), "");
  race.finding.access_site = race.finding.copy.site;
  race.finding.race->earlier.stream = race.finding.race->later.stream = 0;
  EXPECT_EQ(refusal(header() + finding_line(race)), "");
}
