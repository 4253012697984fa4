// `hazardlab check`'s launcher on the CPU: stand-in programs write the logs the injected library would,
// and the verdict, the exit status, the reports (JSON, Markdown, HTML) and the bad-input errors are checked.
// Every JSON report a launcher test writes is also kept as the test's property "check_report", which
// cases/schema/test_check_report_schema.py validates against the shipped schema.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "checker/core/check_settings.hpp"
#include "checker/launch/check_document.hpp"
#include "checker/launch/report_files.hpp"
#include "checker/launch/session.hpp"
#include "checker/launch/symbolize.hpp"

#include <dlfcn.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace hazardlab::check {
namespace {

struct Launcher : ::testing::Test {
  fs::path dir;
  CheckOptions options;
  std::ostringstream err;

  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "launcher-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir = pattern;
    options.inject_library = dir / "libstand-in.so";
    std::ofstream(options.inject_library) << "not a library";
    options.json = dir / "report.json";
    ::unsetenv(std::string(kInjectionPath).c_str());
  }
  void TearDown() override {
    // Only a report the launcher wrote: a test may leave the program's own file at the path (it is kept).
    if (std::ifstream json{dir / "report.json"}; json && json.peek() == '{') RecordProperty("check_report", text_of(json));
    fs::remove_all(dir);
  }
  static std::string text_of(std::istream& in) { return {std::istreambuf_iterator<char>(in), {}}; }
  std::string file_text(const fs::path& path) const {
    std::ifstream in(path);
    return text_of(in);
  }

  // A stand-in program: copies `lines` into its log, then runs `tail` (a shell command).
  void program(const std::string& lines, const std::string& tail = "exit 0") {
    std::ofstream(dir / "lines") << lines;
    const fs::path script = dir / "program.sh";
    std::ofstream(script) << "#!/bin/sh\ncat '" << (dir / "lines").string() << "' > \"$" << setting::kCheckLogFolder.name
                          << "/process-$$.jsonl\"\n"
                          << "test \"$" << kInjectionPath << "\" = '" << options.inject_library.string()
                          << "' || exit 99\n"
                          << tail << "\n";
    fs::permissions(script, fs::perms::owner_all);
    options.command = {script.string()};
  }
};

Finding a_finding() {
  Finding f;
  f.kind = FindingKind::HostWroteCopySource;
  f.copy = CopyFacts{1, "cuMemcpyHtoDAsync", 0, StreamKind::Legacy, HostEnd::Source, 0x1000, 64, PinnedKind::HostAlloc, false, 7};
  f.address = 0x1008;
  f.offset = 8;
  f.access_site = 9;
  return f;
}

TEST_F(Launcher, AWatchedProgramThatDidNothingWrongKeepsItsOwnExitStatus) {
  program(header_line(1, 0, "p", true, "") + summary_line(CheckerStats{3, 0, 0, 0, 0}), "exit 3");
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::Clean);
  EXPECT_EQ(out.exit_status, 3);
  EXPECT_NE(err.str().find("verdict clean"), std::string::npos) << err.str();
}

TEST_F(Launcher, AFindingEndsWithTheChosenStatusAndIsWrittenAsJson) {
  program(header_line(1, 0, "p", true, "") + finding_line(LoggedFinding{a_finding(), {{"/bin/p", 16, "", ""}}, {}}) +
          summary_line(CheckerStats{1, 0, 1, 1, 0}));
  options.error_exitcode = 42;
  options.json = dir / "report.json";
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::Found);
  EXPECT_EQ(out.exit_status, 42);
  EXPECT_NE(err.str().find("Hazard h2d-pinned-mutate"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("hazardlab explain h2d-pinned-mutate"), std::string::npos);
  std::ifstream json(dir / "report.json");
  const nlohmann::json j = nlohmann::json::parse(json);
  EXPECT_EQ(j.at("verdict"), "found");
  EXPECT_EQ(j.at("processes").at(0).at("findings").at(0).at("finding").at("hazard"), "h2d-pinned-mutate");
}

// Each process of a parallel job names its rank, as its launcher set it, in every report.
TEST_F(Launcher, AProcessNamesItsRankInTheConsoleTheJsonTheSarifAndThePage) {
  program(header_line(1, 0, "p", true, "", "3") + finding_line(LoggedFinding{a_finding(), {{"/bin/p", 16, "", ""}}, {}}) +
          summary_line(CheckerStats{1, 0, 1, 1, 0}));
  options.markdown = dir / "report.md";
  options.sarif = dir / "report.sarif";
  run_check(options, err);
  EXPECT_NE(err.str().find("(process 1, rank 3, thread"), std::string::npos) << err.str();
  const nlohmann::json j = nlohmann::json::parse(file_text(dir / "report.json"));
  EXPECT_EQ(j.at("processes").at(0).at("rank"), "3");
  EXPECT_NE(file_text(dir / "report.md").find("process 1, rank 3"), std::string::npos);
  const nlohmann::json sarif = nlohmann::json::parse(file_text(dir / "report.sarif"));
  EXPECT_EQ(sarif.at("runs").at(0).at("results").at(0).at("properties").at("rank"), "3");
}

// The rank comes from the launcher's own variables, the most specific first, and only a whole number counts.
TEST(ProcessRank, IsTheLaunchersWholeNumberTheMostSpecificFirst) {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) ::unsetenv(name);
  EXPECT_FALSE(process_rank_from_environment().has_value());
  ::setenv("SLURM_PROCID", "2", 1);
  EXPECT_EQ(process_rank_from_environment(), "2");
  ::setenv("PMI_RANK", "not-a-rank", 1);
  EXPECT_EQ(process_rank_from_environment(), "2");
  ::setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  EXPECT_EQ(process_rank_from_environment(), "1");
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) ::unsetenv(name);
}

// Open MPI's orted loads the checker (its hwloc lists OpenCL platforms) and makes no CUDA call: it is not counted
// as a CUDA process, and the run is judged by the processes that were.
TEST_F(Launcher, AProcessThatMadeNoCudaCallIsNotCountedAsACudaProcess) {
  program(header_line(1, 0, "orted", true, "") + summary_line(CheckerStats{}));
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::Clean);
  EXPECT_NE(err.str().find("in 0 CUDA process(es) (and 1 that made no CUDA call the checker watches)"),
            std::string::npos)
      << err.str();
  const nlohmann::json j = nlohmann::json::parse(file_text(dir / "report.json"));
  EXPECT_EQ(j.at("processes").at(0).at("made_watched_calls"), false);
  EXPECT_TRUE(j.at("processes").at(0).at("rank").is_null());
}

TEST_F(Launcher, AFindingIsWrittenAsMarkdownAndAsASelfContainedPage) {
  program(header_line(1, 0, "p", true, "") + finding_line(LoggedFinding{a_finding(), {{"/bin/p", 16, "", ""}}, {}}) +
          summary_line(CheckerStats{1, 0, 1, 1, 0}));
  options.markdown = dir / "report.md";
  options.html = dir / "report.html";
  const CheckOutcome out = run_check(options, err);
  const std::string markdown = file_text(dir / "report.md"), html = file_text(dir / "report.html");
  const Finding& f = out.report.processes.at(0).findings.at(0).finding;
  for (const std::string& page : {markdown, html}) {
    EXPECT_NE(page.find("Verdict: found"), std::string::npos) << page;
    EXPECT_NE(page.find(f.what()), std::string::npos) << page;
    EXPECT_NE(page.find("hazardlab explain h2d-pinned-mutate"), std::string::npos) << page;
  }
  // Each page's first line says hazardlab wrote it: a later report replaces it, and never a user's file.
  EXPECT_EQ(markdown, std::string(kReportMarkerLine) + "\n" + doc::to_markdown(check_document(out.report)));
  EXPECT_EQ(html.rfind(std::string(kReportMarkerLine) + "\n<!DOCTYPE html>", 0), 0u);
}

// The program replaces the folder of --markdown by a file while it runs: the report cannot be written, and
// `hazardlab check` must say so (exit 1 in tools/check_command.cpp), not end as if all were written.
TEST_F(Launcher, AReportThatCannotBeWrittenIsAnErrorNeverASilentClean) {
  fs::create_directory(dir / "out");
  options.markdown = dir / "out" / "report.md";
  program(header_line(1, 0, "p", true, "") + summary_line(CheckerStats{1, 0, 0, 0, 0}),
          "rmdir '" + (dir / "out").string() + "' && echo in-the-way > '" + (dir / "out").string() + "'");
  try {
    run_check(options, err);
    ADD_FAILURE() << "a report that could not be written was not an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "out").string()), std::string::npos) << e.what();
  }
  EXPECT_NE(err.str().find("verdict clean"), std::string::npos) << "the console report comes first: " << err.str();
  EXPECT_EQ(file_text(dir / "out"), "in-the-way\n");  // nothing of the program's is lost
}

TEST_F(Launcher, AProgramNoProcessOfWhichWasWatchedIsNeverClean) {
  program("");  // an empty log is still a process that said nothing: a header is needed
  options.command = {"/bin/true"};
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::NotChecked);
  EXPECT_EQ(out.exit_status, 67);
  EXPECT_NE(err.str().find("NOT CHECKED"), std::string::npos);
}

TEST_F(Launcher, AProcessTheCheckerCouldNotWatchSaysWhy) {
  program(header_line(1, 0, "p", false, "CUPTI refused a subscriber: another tool holds it"));
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::NotChecked);
  EXPECT_NE(err.str().find("another tool holds it"), std::string::npos);
}

// A log that is not what the injected library writes leaves that process unwatched, named with the line that is
// wrong; the run is not-checked, never clean, and never ends in an error of the JSON library.
TEST_F(Launcher, ALogThatIsNotOneMakesTheRunNotCheckedNamingTheLine) {
  program(header_line(1, 0, "p", true, "") + "{\"type\":\"progress\",\"driver_calls\":\"many\"}\n" +
          summary_line(CheckerStats{}));
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::NotChecked);
  EXPECT_EQ(out.exit_status, options.unchecked_exitcode);
  EXPECT_NE(err.str().find(".jsonl: line 2: driver_calls: expected a whole number >= 0"), std::string::npos) << err.str();
}

TEST_F(Launcher, ASampledRunIsNotCalledClean) {
  program(header_line(1, 0, "p", true, "") + summary_line(CheckerStats{2, 0, 0, 0, 0, 5}));
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::Sampled);
  EXPECT_NE(err.str().find("left 5 copy ends unwatched"), std::string::npos) << err.str();
}

TEST_F(Launcher, AGapNoteMakesTheRunIncomplete) {
  program(header_line(1, 0, "p", true, "") + note_line("a copy was issued into a stream capture") +
          summary_line(CheckerStats{}));
  EXPECT_EQ(run_check(options, err).report.verdict, CheckVerdict::NotChecked);
}

TEST_F(Launcher, AProgramThatCrashesKeepsItsSignalWithTheFindingsWritten) {
  program(header_line(1, 0, "p", true, "") + finding_line(LoggedFinding{a_finding(), {}, {}}), "kill -SEGV $$");
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.reraise, SIGSEGV);
  EXPECT_EQ(out.report.finding_count(), 1u);
  EXPECT_NE(err.str().find("ended by signal 11"), std::string::npos) << err.str();
}

// simpleCudaGraphs once aborted under the checker before writing its summary, and the run was called clean.
TEST_F(Launcher, AProcessKilledByASignalBeforeItsSummaryIsNeverClean) {
  program(header_line(1, 0, "p", true, "") + progress_line(1) + progress_line(2) + progress_line(64), "kill -ABRT $$");
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::NotChecked);
  EXPECT_EQ(out.reraise, SIGABRT);
  EXPECT_NE(err.str().find("was watched until the program ended by SIGABRT, after at least 64 driver call(s)"),
            std::string::npos)
      << err.str();
}

TEST_F(Launcher, AProcessThatExitedWithoutItsSummaryIsNeverClean) {
  program(header_line(1, 0, "p", true, "") + progress_line(8), "exit 0");
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::NotChecked);
  EXPECT_NE(err.str().find("ended without writing its summary"), std::string::npos) << err.str();
}

TEST_F(Launcher, TheCheckersOwnFailureMakesTheRunNotChecked) {
  program(header_line(1, 0, "p", true, "") +
          note_line("the checker stopped watching after an error of its own (std::bad_alloc); the rest of the run "
                    "was not watched"));
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::NotChecked);
  EXPECT_NE(err.str().find("error of its own"), std::string::npos) << err.str();
}

TEST_F(Launcher, ATmpdirThatDoesNotExistIsNamedAsBadInput) {
  program(header_line(1, 0, "p", true, "") + summary_line(CheckerStats{}));
  const std::string missing = (dir / "no-such-folder").string();
  ::setenv("TMPDIR", missing.c_str(), 1);
  try {
    run_check(options, err);
    ADD_FAILURE() << "a TMPDIR that does not exist was not refused";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("TMPDIR='" + missing + "'"), std::string::npos) << e.what();
  }
  ::unsetenv("TMPDIR");
}

TEST_F(Launcher, TheLogFolderIsRemovedButNothingOfTheProgramsInIt) {
  program(header_line(1, 0, "p", true, "") + summary_line(CheckerStats{}),
          "echo mine > \"$" + std::string(setting::kCheckLogFolder.name) + "/keep.txt\"; echo \"$" + std::string(setting::kCheckLogFolder.name) +
              "\" > '" + (dir / "where").string() + "'");
  run_check(options, err);
  std::string folder;
  std::getline(std::ifstream(dir / "where"), folder);
  EXPECT_TRUE(fs::exists(fs::path(folder) / "keep.txt"));
  EXPECT_FALSE(fs::exists(fs::path(folder) / "process-1.jsonl"));
  fs::remove_all(folder);
}

TEST_F(Launcher, BadInputIsRefusedBeforeAnythingRuns) {
  auto refused = [&](const std::string& needle) {
    try {
      validate(options);
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      return true;
    }
    return false;
  };
  options.command = {};
  EXPECT_TRUE(refused("no program"));
  options.command = {"no-such-program-anywhere"};
  EXPECT_TRUE(refused("no-such-program-anywhere"));
  options.command = {dir.string()};
  EXPECT_TRUE(refused("not an executable file"));
  options.command = {(dir / "lines-not-executable").string()};
  std::ofstream(dir / "lines-not-executable") << "x";
  EXPECT_TRUE(refused("lines-not-executable"));
  options.command = {"/bin/true"};
  options.error_exitcode = 0;
  EXPECT_TRUE(refused("--error-exitcode 0: allowed are 1 to 255"));
  options.error_exitcode = 66;
  options.unchecked_exitcode = 300;
  EXPECT_TRUE(refused("--unchecked-exitcode 300"));
  options.unchecked_exitcode = 67;
  options.json = dir / "missing-folder" / "r.json";
  EXPECT_TRUE(refused("does not exist"));
  options.json = dir;
  EXPECT_TRUE(refused("is a folder"));
  options.json = dir / "r.json";
  options.markdown = dir / "missing-folder" / "r.md";
  EXPECT_TRUE(refused("--markdown " + (dir / "missing-folder" / "r.md").string() + ": the folder"));
  options.markdown = dir / "r.md";
  options.html = dir;
  EXPECT_TRUE(refused("--html " + dir.string() + ": is a folder"));
  options.html = fs::path("");
  EXPECT_TRUE(refused("--html \"\": allowed is a file name"));
  options.html = dir / "." / "r.json";
  EXPECT_TRUE(refused("the same file as --json"));
  options.html = dir / "r.html";
  EXPECT_FALSE(refused("")) << "three files of their own are allowed";
  options.json.reset();
  options.markdown.reset();
  options.html.reset();
  ::setenv(std::string(kInjectionPath).c_str(), "/opt/other-tool.so", 1);
  EXPECT_TRUE(refused("already set (/opt/other-tool.so)"));
  ::unsetenv(std::string(kInjectionPath).c_str());
  options.signal_shim = dir / "signals-gone.so";  // without it a handler could stand in front of the checker's
  EXPECT_TRUE(refused("signals-gone.so is missing: the installation is incomplete"));
  options.signal_shim.clear();
  options.inject_library = dir / "gone.so";
  EXPECT_TRUE(refused("installation is incomplete"));
}

TEST_F(Launcher, AReportNeverReplacesAUsersFileOrTheProgramsInput) {
  auto refused = [&](const std::string& needle) {
    try {
      validate(options);
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      return true;
    }
    return false;
  };
  options.command = {"/bin/true"};
  std::ofstream(dir / "userfile.txt") << "mine";
  options.json = dir / "userfile.txt";
  EXPECT_TRUE(refused("--json " + (dir / "userfile.txt").string() + ": is a file this command did not write"));
  // The program's input, as its argument: refused whether it exists yet or not, by path or by file.
  options.command = {"/bin/cat", (dir / "data.txt").string()};
  options.json = dir / "data.txt";
  EXPECT_TRUE(refused("is named by the program's argument"));
  std::ofstream(dir / "data.txt") << "input";
  options.json = dir / "." / "data.txt";
  EXPECT_TRUE(refused("is named by the program's argument"));
  options.command = {"/bin/cat", "--in=" + (dir / "data.txt").string()};
  EXPECT_TRUE(refused("is named by the program's argument"));
  EXPECT_EQ(file_text(dir / "data.txt"), "input");
  // A report hazardlab check wrote is replaced, in each of its spellings.
  program(header_line(1, 0, "p", true, "") + summary_line(CheckerStats{}));
  options.json = dir / "report.json";
  options.markdown = dir / "report.md";
  options.html = dir / "report.html";
  options.sarif = dir / "report.sarif";
  (void)run_check(options, err);
  EXPECT_FALSE(refused("")) << "the reports of an earlier check are replaced";
  options.markdown.reset();
  options.html.reset();
  options.sarif.reset();
  // Where a report cannot be written, said before the program runs: a pipe, a device, /proc.
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  options.json = dir / "fifo";
  EXPECT_TRUE(refused("is not a regular file"));
  options.json = fs::path("/dev/null");
  EXPECT_TRUE(refused("is not a regular file"));
  options.json = fs::path("/proc/x.json");
  EXPECT_TRUE(refused("the folder /proc does not take a new file"));
  // A relative path and an absolute one that name one file not made yet.
  const fs::path here = fs::current_path();
  fs::current_path(dir);
  options.json = fs::path("r.json");
  options.markdown = fs::path("./r.json");
  EXPECT_TRUE(refused("the same file as --json"));
  options.markdown = dir / "r.json";
  EXPECT_TRUE(refused("the same file as --json"));
  fs::current_path(here);
}

// A report path is judged again after the program ran: a file the program made there, or a report of ours it
// rewrote, is the program's and stays; the other reports are written, and the run ends as a report not written.
TEST_F(Launcher, AFileTheProgramWroteAtAReportPathIsLeftAsItIs) {
  options.markdown = dir / "made.md";
  program(header_line(1, 0, "p", true, "") + summary_line(CheckerStats{1, 0, 0, 0, 0}),
          "echo precious > '" + (dir / "made.md").string() + "'");
  try {
    run_check(options, err);
    ADD_FAILURE() << "a report path the program wrote was written over";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--markdown " + (dir / "made.md").string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(file_text(dir / "made.md"), "precious\n");
  EXPECT_NE(err.str().find("was made while the program ran"), std::string::npos) << err.str();
  EXPECT_TRUE(fs::exists(dir / "report.json")) << "the other report is written";
  // An earlier report of ours the program rewrote while it ran.
  options.markdown.reset();
  program(header_line(1, 0, "p", true, "") + summary_line(CheckerStats{1, 0, 0, 0, 0}),
          "echo mine > '" + (dir / "report.json").string() + "'");
  EXPECT_THROW(run_check(options, err), std::runtime_error);
  EXPECT_EQ(file_text(dir / "report.json"), "mine\n");
  EXPECT_NE(err.str().find("changed while the program ran"), std::string::npos) << err.str();
}

// An earlier report that cannot be read is said to be unreadable, not called a user's file.
TEST_F(Launcher, AnUnreadableReportPathIsSaidToBeUnreadable) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  options.command = {"/bin/true"};
  std::ofstream(dir / "report.json") << "{}";
  fs::permissions(dir / "report.json", fs::perms::none);
  try {
    validate(options);
    ADD_FAILURE() << "an unreadable report path was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be read"), std::string::npos) << e.what();
  }
  fs::permissions(dir / "report.json", fs::perms::owner_all);
}

// The suite's settings are judged as every command judges them, and the checker's own log folder is its own to set.
TEST_F(Launcher, SettingsAreJudgedBeforeTheProgramRuns) {
  options.command = {"/bin/true"};
  const auto refusal = [&]() -> std::string {
    try {
      validate(options);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  };
  ::setenv("HAZARDLAB_TRAILS", "5", 1);
  std::vector<std::string> warnings = validate(options);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("HAZARDLAB_TRAILS is not a hazardlab setting (did you mean HAZARDLAB_TRIALS?)"),
            std::string::npos)
      << warnings[0];
  ::setenv("HAZARDLAB_STRICT", "1", 1);
  EXPECT_NE(refusal().find("HAZARDLAB_TRAILS"), std::string::npos);
  ::unsetenv("HAZARDLAB_STRICT");
  ::unsetenv("HAZARDLAB_TRAILS");
  ::setenv("HAZARDLAB_TRIALS", "abc", 1);
  EXPECT_NE(refusal().find("HAZARDLAB_TRIALS='abc'"), std::string::npos);
  ::unsetenv("HAZARDLAB_TRIALS");
  ::setenv(std::string(setting::kCheckLogFolder.name).c_str(), dir.c_str(), 1);
  EXPECT_NE(refusal().find(std::string(setting::kCheckLogFolder.name) + "='" + dir.string() + "' is set"),
            std::string::npos);
  ::unsetenv(std::string(setting::kCheckLogFolder.name).c_str());
  EXPECT_EQ(refusal(), "");
}

__attribute__((noinline)) int a_function_the_symbolizer_must_name(int x) { return x * 3 + 1; }

TEST(Symbolize, NamesAFrameOfThisProgramByFunctionAndLine) {
  Dl_info info{};
  ASSERT_NE(::dladdr(reinterpret_cast<void*>(&a_function_the_symbolizer_must_name), &info), 0);
  ProcessLog p;
  LoggedFinding f{a_finding(), {}, {}};
  f.copy_stack.push_back(Frame{fs::read_symlink("/proc/self/exe").string(),
                               reinterpret_cast<std::uintptr_t>(&a_function_the_symbolizer_must_name) -
                                   reinterpret_cast<std::uintptr_t>(info.dli_fbase),
                               "", ""});
  p.findings.push_back(f);
  std::vector<ProcessLog> logs{p};
  if (!symbolize(logs)) GTEST_SKIP() << "addr2line is not installed";
  const Frame& named = logs[0].findings[0].copy_stack.at(0);
  EXPECT_NE(named.symbol.find("a_function_the_symbolizer_must_name"), std::string::npos) << named.symbol;
  EXPECT_NE(named.location.find("test_check_launch.cpp"), std::string::npos) << named.location;
}


// A finding of a Python program whose native frames addr2line names, relying on a rule a GPU does not keep:
// the JSON report then holds every field its schema names (cases/schema/test_check_report_schema.py).
TEST_F(Launcher, APythonProgramsFindingKeepsBothStacksNamed) {
  Dl_info info{};
  ASSERT_NE(::dladdr(reinterpret_cast<void*>(&a_function_the_symbolizer_must_name), &info), 0);
  const Frame here{fs::read_symlink("/proc/self/exe").string(),
                   reinterpret_cast<std::uintptr_t>(&a_function_the_symbolizer_must_name) -
                       reinterpret_cast<std::uintptr_t>(info.dli_fbase),
                   "", ""};
  Finding f = a_finding();
  f.relies_on = {conformance::Deviation::kSmallPinnedUploadSkipsImplicitSync};
  program(header_line(1, 0, "python3", true, "") +
          finding_line(LoggedFinding{f, {here}, {here}, {{"train.py", 50, "stage"}}, {{"train.py", 49, "stage"}}}) +
          summary_line(CheckerStats{1, 0, 1, 1, 0}));
  const CheckOutcome out = run_check(options, err);
  EXPECT_EQ(out.report.verdict, CheckVerdict::Found);
  EXPECT_NE(err.str().find("train.py:49 in stage"), std::string::npos) << err.str();
  const nlohmann::json j = nlohmann::json::parse(file_text(dir / "report.json"));
  const nlohmann::json& finding = j.at("processes").at(0).at("findings").at(0);
  EXPECT_EQ(finding.at("access_python").at(0).at("line"), 49);
  EXPECT_EQ(finding.at("finding").at("relies_on").size(), 1u);
  if (!finding.at("copy_stack").at(0).contains("function")) GTEST_SKIP() << "addr2line is not installed";
  EXPECT_NE(finding.at("copy_stack").at(0).at("location").get<std::string>().find("test_check_launch.cpp"),
            std::string::npos);
}

// An access on a thread that never ran Python (a PyTorch intra-op worker) is logged with the main thread's Python
// frames, and every report says whose they are; an access on a Python thread says nothing of the kind.
TEST_F(Launcher, AnAccessOnAThreadWithoutPythonSaysItsLineIsTheMainThreads) {
  LoggedFinding worker{a_finding(), {}, {}, {{"train.py", 50, "stage"}}, {{"train.py", 49, "stage"}}, true};
  LoggedFinding own = worker;
  own.access_python_of_main_thread = false;
  own.finding.access_site = 2;
  program(header_line(1, 0, "python3", true, "") + finding_line(worker) + finding_line(own) +
          summary_line(CheckerStats{1, 0, 2, 2, 0}));
  const CheckOutcome out = run_check(options, err);
  ASSERT_EQ(out.report.finding_count(), 2u);
  EXPECT_TRUE(out.report.processes.at(0).findings.at(0).access_python_of_main_thread);
  EXPECT_FALSE(out.report.processes.at(0).findings.at(1).access_python_of_main_thread);
  const std::string text = err.str();
  const std::size_t first = text.find("Host access, Python (the main thread's");
  EXPECT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find("Host access, Python (the main thread's", first + 1), std::string::npos) << text;
  EXPECT_NE(text.find("Host access, Python:"), std::string::npos) << text;
  const nlohmann::json j = nlohmann::json::parse(file_text(dir / "report.json"));
  EXPECT_EQ(j.at("processes").at(0).at("findings").at(0).at("access_python_of_main_thread"), true);
  EXPECT_EQ(j.at("processes").at(0).at("findings").at(1).at("access_python_of_main_thread"), false);
}

// Which backend protected the pages, and why, is said once per backend in the console text and for each
// process in the JSON; a process that did not say is null there.
TEST_F(Launcher, ThePageProtectionBackendAndItsReasonAreReported) {
  program(header_line(1, 0, "p", true, "") + summary_line(CheckerStats{}));
  (void)run_check(options, err);
  EXPECT_EQ(err.str().find("Page protection"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(file_text(dir / "report.json")).at("processes").at(0).at("protection").is_null());
  // Last, so that the report the schema test reads is this one.
  program(header_line(1, 0, "p", true, "") +
          protection_line("mprotect", "the CPU has no memory protection keys (no pku)") +
          summary_line(CheckerStats{}));
  err.str("");
  EXPECT_EQ(run_check(options, err).exit_status, 0) << err.str();
  EXPECT_NE(err.str().find("Page protection: mprotect in 1 process(es) (the CPU has no memory protection keys (no "
                           "pku))"),
            std::string::npos)
      << err.str();
  const nlohmann::json j = nlohmann::json::parse(file_text(dir / "report.json"));
  EXPECT_EQ(j.at("processes").at(0).at("protection").at("backend"), "mprotect");
}

// The checker's preloads go first in the program's LD_PRELOAD, and the program's own stay after them: the signal
// shim under every protection (so that a SIGSEGV handler the program installs while a copy is held goes behind
// the checker's at once), and before it the thread shim, unless the two held-page keys or mprotect are asked for,
// which need no range keys.
TEST_F(Launcher, TheSignalShimIsPreloadedUnderEveryProtectionAndTheThreadShimWhereRangeKeysMayBeUsed) {
  options.thread_shim = dir / "libthreads.so";
  options.signal_shim = dir / "libsignals.so";
  std::ofstream(options.thread_shim) << "";
  std::ofstream(options.signal_shim) << "";
  const std::string signals_alone = options.signal_shim.string();
  const std::string both = options.thread_shim.string() + " " + options.signal_shim.string();
  const auto preloads = [&](const std::string& expected, const std::string& what) {
    program(header_line(1, 0, "p", true, "") + summary_line(CheckerStats{}),
            "test \"$LD_PRELOAD\" = '" + expected + "' || { echo \"LD_PRELOAD='$LD_PRELOAD'\" >&2; exit 98; }");
    const CheckOutcome out = run_check(options, err);
    EXPECT_EQ(out.exit_status, 0) << what << ": expected LD_PRELOAD='" << expected << "'\n" << err.str();
    err.str("");
  };
  ::unsetenv("LD_PRELOAD");
  for (ProtectionRequest other : {ProtectionRequest::Keys, ProtectionRequest::Mprotect}) {
    options.protection = other;
    preloads(signals_alone, std::string(to_string(other)));
  }
  // Asked by the environment the program inherits, as by the option.
  options.protection.reset();
  for (const char* asked : {"keys", "mprotect"}) {
    ::setenv("HL_CHECK_PROTECTION", asked, 1);
    preloads(signals_alone, asked);
  }
  // The option given wins over the environment, auto too: range keys may be used, so the thread shim goes in.
  options.protection = ProtectionRequest::Auto;
  preloads(both, "--protection auto over HL_CHECK_PROTECTION=mprotect");
  options.protection.reset();
  for (const char* asked : {"range-keys", "auto"}) {
    ::setenv("HL_CHECK_PROTECTION", asked, 1);
    preloads(both, asked);
  }
  ::unsetenv("HL_CHECK_PROTECTION");
  preloads(both, "nothing asked");
  options.protection = ProtectionRequest::RangeKeys;
  ::setenv("LD_PRELOAD", "", 1);  // an empty value: nothing to keep
  preloads(both, "range-keys, an empty LD_PRELOAD");
  const fs::path theirs = dir / "libtheirs.so";
  std::ofstream(theirs) << "";
  ::setenv("LD_PRELOAD", theirs.c_str(), 1);
  preloads(both + " " + theirs.string(), "range-keys, the program's own preload");
  options.protection = ProtectionRequest::Mprotect;
  preloads(signals_alone + " " + theirs.string(), "mprotect, the program's own preload");
  // Where neither shim was found (a launcher test, or a build without them), the program's preloads are as they were.
  options.thread_shim.clear();
  options.signal_shim.clear();
  preloads(theirs.string(), "no shims");
  ::unsetenv("LD_PRELOAD");
}

// A report holding everything a report can: a finding of a Python program with both stacks (a driver frame
// among them, which is left out), a free in a child process that also left a note, a process that was not
// watched, and copies the faster mode left out.
CheckReport a_full_report() {
  ProcessLog python;
  python.pid = 5563;
  python.parent = 1;
  python.program = "python3";
  python.watching = true;
  LoggedFinding write{a_finding(),
                      {{"/usr/lib/libcuda.so.1", 0x10, "cuMemcpyHtoDAsync_v2", ""},
                       {"/usr/lib/libcudart.so.13", 0x70f6b, "cudaMemcpyAsync", ""},
                       {"/opt/app/train", 0x1234, "stage(int)", "train.cpp:12"}},
                      {{"/opt/app/libtorch_cpu.so", 0x6d063b7, "add_kernel<float>", ""}},
                      {{"training_loop.py", 50, "staging"}},
                      {{"training_loop.py", 49, "staging"}}};
  write.finding.thread = 5592;
  python.findings.push_back(write);
  python.summary = CheckerStats{65, 0, 1, 1, 0, 3};
  ProcessLog child;
  child.pid = 5570;
  child.parent = 5563;
  child.program = "worker";
  child.watching = true;
  Finding freed = a_finding();
  freed.kind = FindingKind::FreedWhileCopyOwns;
  freed.copy.id = 2;
  freed.thread = 5571;
  child.findings.push_back({freed, {{"/opt/app/worker", 0x99, "", ""}}, {}});
  child.notes.push_back("a copy was issued into a stream capture");
  child.summary = CheckerStats{4, 1, 1, 2, 3, 0};
  ProcessLog unwatched;
  unwatched.pid = 5580;
  unwatched.parent = 5563;
  unwatched.program = "profiler-child";
  unwatched.not_watching_because = "CUPTI refused a subscriber: another tool holds it";
  return CheckReport::judge({"python3", "train.py", "--name", "two words"}, ProgramEnd{false, 0},
                            {python, child, unwatched});
}

// Scripts read these lines (checker/programs/expect_check.py): the console text stays as it is, word for word.
// The finding's own sentences come from Finding (checker/core/finding.cpp), which test_check_core checks.
TEST(ConsoleText, StaysWordForWord) {
  const CheckReport report = a_full_report();
  const Finding& write = report.processes[0].findings[0].finding;
  const Finding& freed = report.processes[1].findings[0].finding;
  std::ostringstream out;
  report.print(out);
  EXPECT_EQ(out.str(),
            "========= HAZARDLAB CHECK\n"
            "========= Hazard h2d-pinned-mutate: host-wrote-copy-source (process 5563, thread 5592)\n"
            "=========     " + write.what() + "\n"
            "=========     Host access, Python:\n"
            "=========         training_loop.py:49 in staging\n"
            "=========     Copy issued, Python:\n"
            "=========         training_loop.py:50 in staging\n"
            "=========     Host access:\n"
            "=========         #0 add_kernel<float> (libtorch_cpu.so+0x6d063b7)\n"
            "=========     Copy issued:\n"
            "=========         #0 cudaMemcpyAsync (libcudart.so.13+0x70f6b)\n"
            "=========         #1 stage(int) at train.cpp:12 (train+0x1234)\n"
            "=========     Missing: " + write.missing() + "\n"
            "=========     Fix: " + write.smallest_fix() + "\n"
            "=========     Explained: hazardlab explain h2d-pinned-mutate\n"
            "========= \n"
            "========= Hazard free-while-in-flight: freed-while-copy-owns (process 5570, thread 5571)\n"
            "=========     " + freed.what() + "\n"
            "=========     Copy issued:\n"
            "=========         #0 ? (worker+0x99)\n"
            "=========     Missing: " + freed.missing() + "\n"
            "=========     Fix: " + freed.smallest_fix() + "\n"
            "=========     Explained: hazardlab explain free-while-in-flight\n"
            "========= \n"
            "========= NOT CHECKED: process 5570 (worker): a copy was issued into a stream capture\n"
            "========= NOT CHECKED: process 5580 (profiler-child) was not watched: CUPTI refused a subscriber: "
            "another tool holds it\n"
            "========= SAMPLED: --sample left 3 copy ends unwatched; a hazard only in those copies would not be "
            "found\n"
            "========= HAZARDLAB CHECK SUMMARY: 2 finding(s) in 3 CUDA process(es), 69 copy ends watched; the "
            "program exited with status 0; verdict found\n");
}


// The document (check_document.cpp): what it says, in Markdown and in HTML.
struct CheckDocument : ::testing::Test {
  static bool has(const std::string& page, const std::string& text) { return page.find(text) != std::string::npos; }
};

TEST_F(CheckDocument, AFindingHasItsRowItsTwoStacksAndItsExplanation) {
  const CheckReport report = a_full_report();
  const std::string markdown = doc::to_markdown(check_document(report));
  EXPECT_TRUE(has(markdown, "**Verdict: found**")) << markdown;
  EXPECT_TRUE(has(markdown, std::string(meaning(CheckVerdict::Found)))) << markdown;
  EXPECT_TRUE(has(markdown, "Command: `python3 train.py --name 'two words'`")) << markdown;
  EXPECT_TRUE(has(markdown, "The program exited with status 0.")) << markdown;
  EXPECT_TRUE(has(markdown, "| # | Hazard | Kind | Process / thread | What happened | Missing | Fix | Explained |"));
  const Finding& write = report.processes[0].findings[0].finding;
  EXPECT_TRUE(has(markdown, "| 1 | `h2d-pinned-mutate` | host-wrote-copy-source | process 5563 / thread 5592 | " + write.what() +
                                " | " + write.missing() + " | " + write.smallest_fix() +
                                " | `hazardlab explain h2d-pinned-mutate` |"))
      << markdown;
  // The stacks, folded: Python first, then the program's native frames, the driver's left out.
  EXPECT_TRUE(has(markdown, "<details><summary>Host access (2 frames)</summary>\n\n- Python\n"
                            "  - `training_loop.py:49 in staging`\n- Native\n"
                            "  - `#0 add_kernel<float> (libtorch_cpu.so+0x6d063b7)`\n"))
      << markdown;
  EXPECT_TRUE(has(markdown, "  - `#1 stage(int) at train.cpp:12 (train+0x1234)`")) << markdown;
  EXPECT_FALSE(has(markdown, "libcuda.so")) << markdown;
  EXPECT_TRUE(has(markdown, "<details><summary>Host access (0 frames)</summary>\n\n- (no frames)\n")) << markdown;
  EXPECT_TRUE(has(markdown, "> **Sampled:** --sample left 3 copy ends unwatched")) << markdown;
  EXPECT_TRUE(has(markdown, report.summary())) << markdown;
  EXPECT_TRUE(has(markdown, "| 5570 | - | 5563 | worker | yes | 1 | 2 | 4 | 0 | 1 | 3 |")) << markdown;
  EXPECT_TRUE(has(markdown, "| 5580 | - | 5563 | profiler-child | no | 0 | - | - | - | - | - |")) << markdown;

  const std::string html = doc::to_html(check_document(report));
  EXPECT_TRUE(has(html, "<p class='verdict found'><b>Verdict: found</b></p>")) << html;
  EXPECT_TRUE(has(html, "<li><code>#0 add_kernel&lt;float&gt; (libtorch_cpu.so+0x6d063b7)</code></li>")) << html;
  EXPECT_TRUE(has(html, "<details><summary>Copy issued (3 frames)</summary>")) << html;
  for (const char* elsewhere : {"<script", "src=", "href=", "@import", "url("})
    EXPECT_FALSE(has(html, elsewhere)) << "the page loads " << elsewhere;
}

// Left out, a finding would be a clean-looking table: each one has its row and its stacks.
TEST_F(CheckDocument, EveryFindingIsInTheDocument) {
  CheckReport report = a_full_report();
  ProcessLog& child = report.processes[1];
  for (std::size_t byte : {24u, 40u}) {
    Finding more = a_finding();
    more.offset = byte;
    more.kind = FindingKind::HostReadCopyDestination;
    more.copy.end = HostEnd::Destination;
    child.findings.push_back({more, {}, {}});
  }
  ASSERT_EQ(report.finding_count(), 4u);
  const std::string markdown = doc::to_markdown(check_document(report));
  std::size_t number = 0;
  for (const ProcessLog& p : report.processes)
    for (const LoggedFinding& lf : p.findings) {
      ++number;
      EXPECT_TRUE(has(markdown, "| " + std::to_string(number) + " | `" + lf.finding.hazard() + "` | " +
                                    std::string(to_string(lf.finding.kind)) + " | " + process_name(p) + " / thread " +
                                    std::to_string(lf.finding.thread) + " | " + lf.finding.what() + " |"))
          << "finding " << number << " has no row:\n" << markdown;
      EXPECT_TRUE(has(markdown, "### Finding " + std::to_string(number) + ": `" + lf.finding.hazard() + "`, process " +
                                    std::to_string(p.pid)))
          << "finding " << number << " has no stacks:\n" << markdown;
    }
  EXPECT_FALSE(has(markdown, "### Finding 5")) << markdown;
}

TEST_F(CheckDocument, WhatWasNotCheckedIsANoteAndTheRunIsNotCalledClean) {
  ProcessLog unwatched;
  unwatched.pid = 7;
  unwatched.program = "p";
  unwatched.not_watching_because = "CUPTI refused a subscriber: another tool holds it";
  const CheckReport report = CheckReport::judge({"p"}, ProgramEnd{true, SIGSEGV}, {unwatched});
  const std::string markdown = doc::to_markdown(check_document(report));
  EXPECT_TRUE(has(markdown, "**Verdict: not-checked**")) << markdown;
  EXPECT_TRUE(has(markdown, "> **Not checked:** process 7 (p) was not watched: CUPTI refused a subscriber: another "
                            "tool holds it\n"))
      << markdown;
  EXPECT_TRUE(has(markdown, "The program ended by signal 11")) << markdown;
  EXPECT_TRUE(has(markdown, "None in what was watched; the verdict above says why the run is not called clean."));
  const std::string html = doc::to_html(check_document(report));
  EXPECT_TRUE(has(html, "<blockquote><b>Not checked:</b> process 7 (p) was not watched")) << html;

  const std::string nothing = doc::to_markdown(check_document(CheckReport::judge({"p"}, ProgramEnd{}, {})));
  EXPECT_TRUE(has(nothing, "> **Not checked:** no process of the program started CUDA")) << nothing;
}

TEST_F(CheckDocument, ACleanRunSaysSoAndHasNoFindings) {
  ProcessLog p;
  p.pid = 3;
  p.program = "p";
  p.watching = true;
  p.summary = CheckerStats{12, 0, 0, 0, 0, 0};
  const CheckReport report = CheckReport::judge({"p", "--x"}, ProgramEnd{false, 3}, {p});
  const std::string markdown = doc::to_markdown(check_document(report));
  EXPECT_TRUE(has(markdown, "**Verdict: clean**")) << markdown;
  EXPECT_TRUE(has(markdown, "## Findings\n\nNone.\n")) << markdown;
  EXPECT_FALSE(has(markdown, "| Hazard |")) << markdown;
  EXPECT_FALSE(has(markdown, "> ")) << "a clean run has no note:\n" << markdown;
  EXPECT_TRUE(has(markdown, "The program exited with status 3.")) << markdown;
  EXPECT_TRUE(has(markdown, "0 finding(s) in 1 CUDA process(es), 12 copy ends watched")) << markdown;
  const std::string html = doc::to_html(check_document(report));
  EXPECT_TRUE(has(html, "<p class='verdict clean'><b>Verdict: clean</b></p>")) << html;
}

}  // namespace
}  // namespace hazardlab::check

// ---- SARIF 2.1.0 ---------------------------------------------------------------------------------------------

namespace hazardlab::check {
namespace {

// The properties SARIF 2.1.0 requires of what hazardlab writes (sarifLog, run, tool, toolComponent,
// reportingDescriptor, result, message, location, physicalLocation, artifactLocation, region, codeFlow,
// threadFlow, threadFlowLocation), checked on a written file; each problem named.
std::vector<std::string> sarif_problems(const nlohmann::json& log) {
  std::vector<std::string> p;
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) p.push_back(what);
  };
  need(log.value("version", "") == "2.1.0", "sarifLog.version is not 2.1.0");
  need(log.contains("runs") && log["runs"].is_array() && log["runs"].size() == 1, "sarifLog.runs is not one run");
  if (!p.empty()) return p;
  const nlohmann::json& run = log["runs"][0];
  need(run.contains("tool") && run["tool"].contains("driver") && run["tool"]["driver"].contains("name"),
       "run.tool.driver.name is missing");
  for (const auto& rule : run["tool"]["driver"].value("rules", nlohmann::json::array()))
    need(rule.contains("id") && rule["id"].is_string(), "a rule has no id");
  auto location_ok = [&](const nlohmann::json& l, const std::string& where) {
    if (!l.contains("physicalLocation")) return;
    const nlohmann::json& ph = l["physicalLocation"];
    need(ph.contains("artifactLocation") || ph.contains("address"), where + ": physicalLocation names no artifact");
    if (ph.contains("region"))
      need(ph["region"].value("startLine", 0) >= 1, where + ": region.startLine is not 1 or more");
  };
  for (const auto& result : run.value("results", nlohmann::json::array())) {
    need(result.contains("message") && (result["message"].contains("text") || result["message"].contains("id")),
         "a result has no message text");
    for (const auto& l : result.value("locations", nlohmann::json::array())) location_ok(l, "result.locations");
    for (const auto& l : result.value("relatedLocations", nlohmann::json::array()))
      location_ok(l, "result.relatedLocations");
    for (const auto& flow : result.value("codeFlows", nlohmann::json::array())) {
      need(flow.contains("threadFlows") && !flow["threadFlows"].empty(), "a codeFlow has no threadFlows");
      for (const auto& thread : flow.value("threadFlows", nlohmann::json::array())) {
        need(thread.contains("locations") && !thread["locations"].empty(), "a threadFlow has no locations");
        for (const auto& step : thread.value("locations", nlohmann::json::array()))
          if (step.contains("location")) location_ok(step["location"], "threadFlowLocation");
      }
    }
  }
  return p;
}

LoggedFinding finding_at(const std::string& access_file, int access_line, const std::string& copy_file, int copy_line,
                         std::uintptr_t address, std::uint64_t thread) {
  Finding f = a_finding();
  f.address = address;
  f.thread = thread;
  LoggedFinding logged{f, {}, {}};
  logged.copy_stack = {Frame{"/bin/p", 16, "copy_fn", copy_file + ":" + std::to_string(copy_line)}};
  logged.access_stack = {Frame{"/usr/lib/libcuda.so.1", 8, "driver", ""},
                         Frame{"/bin/p", 32, "access_fn", access_file + ":" + std::to_string(access_line) + " (discriminator 2)"}};
  return logged;
}

CheckReport report_with(std::vector<LoggedFinding> findings) {
  ProcessLog p;
  p.pid = 1;
  p.program = "p";
  p.watching = true;
  p.findings = std::move(findings);
  p.summary = CheckerStats{1, 0, 1, 1, 0};
  return CheckReport::judge({"p"}, ProgramEnd{}, {p});
}

TEST(Sarif, AFindingIsAResultAtTheAccessLineWithTheCopyAndTheMissingSynchronizationAsItsFlow) {
  const fs::path root = fs::temp_directory_path() / "sarif-root";
  const std::string access = (root / "src" / "train.cpp").string(), copy = (root / "src" / "load.cpp").string();
  SarifContext context{"9.9.9", root, [](std::string_view id) -> std::optional<HazardExplanation> {
                         if (id != "h2d-pinned-mutate") return std::nullopt;
                         return HazardExplanation{"The host rewrites a pinned source", "The copy reads when it runs."};
                       }};
  const nlohmann::json log = to_sarif(report_with({finding_at(access, 42, copy, 17, 0x1000, 5)}), context);
  EXPECT_EQ(sarif_problems(log), std::vector<std::string>{}) << log.dump(2);
  const nlohmann::json& run = log["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "hazardlab");
  EXPECT_EQ(run["tool"]["driver"]["version"], "9.9.9");
  const nlohmann::json& rule = run["tool"]["driver"]["rules"].at(0);
  EXPECT_EQ(rule["id"], "h2d-pinned-mutate");
  EXPECT_EQ(rule["shortDescription"]["text"], "The host rewrites a pinned source");
  EXPECT_NE(rule["help"]["text"].get<std::string>().find("hazardlab explain h2d-pinned-mutate"), std::string::npos);
  const nlohmann::json& result = run["results"].at(0);
  EXPECT_EQ(result["level"], "error");
  EXPECT_EQ(result["ruleId"], "h2d-pinned-mutate");
  // The line the access's stack names (the driver's frame, with no line, passed over), relative to the root.
  const nlohmann::json& where = result["locations"][0]["physicalLocation"];
  EXPECT_EQ(where["artifactLocation"]["uri"], "src/train.cpp");
  EXPECT_EQ(where["artifactLocation"]["uriBaseId"], "SRCROOT");
  EXPECT_EQ(where["region"]["startLine"], 42);
  EXPECT_EQ(result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 17);
  const nlohmann::json& steps = result["codeFlows"][0]["threadFlows"][0]["locations"];
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0]["location"]["physicalLocation"]["region"]["startLine"], 17);
  EXPECT_NE(steps[1]["location"]["message"]["text"].get<std::string>().find("missing: "), std::string::npos);
  EXPECT_EQ(steps[2]["location"]["physicalLocation"]["region"]["startLine"], 42);
}

// Code scanning matches results across runs by fingerprint: another run of the same program (other addresses,
// threads and processes) gives the same one; another line gives another.
TEST(Sarif, FingerprintsAreTheSameFromRunToRunAndDifferForAnotherLine) {
  const SarifContext context{"1", "/src", {}};
  auto print = [&](int line, std::uintptr_t address, std::uint64_t thread) {
    return to_sarif(report_with({finding_at("/src/a.cpp", line, "/src/b.cpp", 3, address, thread)}), context)["runs"][0]
        ["results"][0]["partialFingerprints"]["hazardlabFinding/v1"];
  };
  EXPECT_EQ(print(10, 0x1000, 1), print(10, 0x7f00, 99));
  EXPECT_NE(print(10, 0x1000, 1), print(11, 0x1000, 1));
}

TEST(Sarif, APathOutsideTheRootIsAnAbsoluteFileUri) {
  const nlohmann::json log =
      to_sarif(report_with({finding_at("/elsewhere/a.cpp", 5, "/elsewhere/b.cpp", 6, 1, 1)}), SarifContext{"1", "/src", {}});
  EXPECT_EQ(log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "file:///elsewhere/a.cpp");
}

}  // namespace
}  // namespace hazardlab::check

namespace hazardlab::check {
namespace {

TEST_F(Launcher, SarifIsWrittenBesideTheOtherReportsAndRefusedWhereTheyAre) {
  program(header_line(1, 0, "p", true, "") + finding_line(LoggedFinding{a_finding(), {{"/bin/p", 16, "", ""}}, {}}) +
          summary_line(CheckerStats{1, 0, 1, 1, 0}));
  options.sarif = dir / "report.sarif";
  options.source_root = dir;
  (void)run_check(options, err);
  std::ifstream in(dir / "report.sarif");
  const nlohmann::json log = nlohmann::json::parse(in);
  EXPECT_EQ(log["runs"][0]["results"].size(), 1u);
  EXPECT_EQ(sarif_problems(log), std::vector<std::string>{});
  // Bad input, before the program runs: a folder, the file --json writes, a root that is not a folder.
  auto refused = [&](const std::string& says) {
    try {
      validate(options);
      return false;
    } catch (const UsageError& e) {
      return std::string(e.what()).find(says) != std::string::npos;
    }
  };
  options.sarif = dir;
  EXPECT_TRUE(refused("--sarif " + dir.string() + ": is a folder"));
  options.sarif = options.json;
  EXPECT_TRUE(refused("the same file as --json"));
  options.sarif = dir / "report.sarif";
  options.source_root = dir / "no-such-folder";
  EXPECT_TRUE(refused("--source-root"));
}

}  // namespace
}  // namespace hazardlab::check
