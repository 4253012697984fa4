// Bad input and failed writes in the record, the reports and the fleet report: nothing of a
// user's is lost or overwritten, and nothing goes by silently. Plain C++, no CUDA.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "fleet_fixture.hpp"
#include "hazardlab/atomic_file.hpp"
#include "hazardlab/publish.hpp"
#include "hazardlab/strict_number.hpp"

using namespace hazardlab;
using namespace hazardlab::testing;
namespace fs = std::filesystem;

namespace {

RunContents run_named(const std::string& id) {
  RunContents c = complete_run(1);
  c.run.id = id;
  return c;
}

int report(const fs::path& run_dir, const fs::path& out, std::size_t keep, std::string* printed = nullptr) {
  std::ostringstream o, e;
  const int rc = report_run(run_dir, ReportOptions{out, false, keep}, o, e);
  if (printed) *printed = o.str() + e.str();
  return rc;
}

int merge(const std::vector<fs::path>& runs, const fs::path& out, std::string* printed = nullptr) {
  std::ostringstream o, e;
  const int rc = merge_command(runs, fleet_options(out), o, e);
  if (printed) *printed = o.str() + e.str();
  return rc;
}

// A process of this host that is still going, as a run's owner would be.
struct LiveProcess {
  pid_t pid = ::fork();
  LiveProcess() {
    if (pid == 0) {
      ::pause();
      ::_exit(0);
    }
  }
  void end() {
    if (pid > 0) ::kill(pid, SIGKILL), ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
  ~LiveProcess() { end(); }
};

}  // namespace

// An ended run reported before says all its report would write back: its record is not rewritten, so a
// read-only copy of it is reported as well; one that must be written back and cannot is refused first.
TEST(NothingLost, AnEndedRunsRecordIsNotRewritten) {
  const fs::path base = fresh_dir("ended-record");
  const fs::path run = write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  std::string printed;
  ASSERT_EQ(report(run, base / "reports", 20, &printed), 0) << printed;
  struct stat before {}, after {};
  ASSERT_EQ(::stat((run / "run.json").c_str(), &before), 0);
  ASSERT_EQ(report(run, base / "reports2", 20, &printed), 0) << printed;
  ASSERT_EQ(::stat((run / "run.json").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino) << "the record was written again";
  if (::geteuid() == 0) return;  // root writes into every folder
  const fs::path fresh = write_run_folder(base / "results-ro", run_named("20261102T000000Z-h-2"));
  fs::permissions(fresh, fs::perms::owner_write, fs::perm_options::remove);
  EXPECT_EQ(report(fresh, base / "reports3", 20, &printed), 2) << printed;
  EXPECT_NE(printed.find("cannot be written"), std::string::npos) << printed;
  EXPECT_FALSE(fs::exists(base / "reports3" / "runs"));
  fs::permissions(fresh, fs::perms::owner_write, fs::perm_options::add);
}

TEST(NothingLost, AReportWithKeepNeverRemovesARunFolder) {
  const fs::path base = fresh_dir("keep-runs");
  std::vector<fs::path> runs;
  for (const char* id : {"20261101T000000Z-h-1", "20261102T000000Z-h-2", "20261103T000000Z-h-3"})
    runs.push_back(write_run_folder(base / "results", run_named(id)));
  ASSERT_EQ(report(runs[0], base / "new-reports", 1), 0);
  for (const fs::path& run : runs) EXPECT_TRUE(fs::exists(run / "run.json")) << run << " was removed by a report";
}

TEST(NothingLost, KeepRemovesTheOldestReportSetsAndSaysSo) {
  const fs::path base = fresh_dir("keep-sets");
  const fs::path reports = base / "reports";
  std::string printed;
  for (const char* id : {"20261101T000000Z-h-1", "20261102T000000Z-h-2", "20261103T000000Z-h-3"})
    ASSERT_EQ(report(write_run_folder(base / "results", run_named(id)), reports, 2, &printed), 0) << printed;
  EXPECT_FALSE(fs::exists(reports / "runs" / "20261101T000000Z-h-1"));
  EXPECT_TRUE(fs::exists(reports / "runs" / "20261102T000000Z-h-2"));
  EXPECT_TRUE(fs::exists(reports / "runs" / "20261103T000000Z-h-3"));
  EXPECT_NE(printed.find("removed the report set " + (reports / "runs" / "20261101T000000Z-h-1").string()),
            std::string::npos)
      << printed;
  // A report set carries a marker of its own, never a run folder's.
  EXPECT_TRUE(fs::exists(reports / "runs" / "20261103T000000Z-h-3" / kReportSetMarker));
  EXPECT_FALSE(fs::exists(reports / "runs" / "20261103T000000Z-h-3" / kRunMarker));
}

TEST(NothingLost, ReportingARunAgainNeverDeletesAUsersFileInItsReportSet) {
  const fs::path base = fresh_dir("report-again");
  const fs::path run = write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  const fs::path reports = base / "reports";
  ASSERT_EQ(report(run, reports, 20), 0);
  const fs::path set = reports / "runs" / "20261101T000000Z-h-1";
  std::ofstream(set / "my-annotations.txt") << "mine";
  const std::string record_before = read_text_file(run / "run.json");
  std::string printed;
  // Refused before anything is written: the set, the user's file and the run record stay as they were.
  EXPECT_EQ(report(run, reports, 20, &printed), 2) << printed;
  EXPECT_NE(printed.find("my-annotations.txt"), std::string::npos) << printed;
  EXPECT_EQ(read_text_file(set / "my-annotations.txt"), "mine");
  EXPECT_EQ(read_text_file(run / "run.json"), record_before);
  // Without it the run is reported again into its set.
  fs::remove(set / "my-annotations.txt");
  EXPECT_EQ(report(run, reports, 20, &printed), 0) << printed;
  EXPECT_TRUE(fs::exists(set / "gpu0.json"));
}

TEST(NothingLost, AReportFolderRefusedLeavesTheRunRecordAsItWas) {
  const fs::path base = fresh_dir("report-refused");
  const fs::path run = write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  fs::create_directories(base / "mine");
  std::ofstream(base / "mine" / "notes.txt") << "mine";
  std::ofstream(base / "a-file") << "mine";
  const std::string record_before = read_text_file(run / "run.json");
  std::string printed;
  for (const fs::path& out : {base / "mine", base / "a-file"}) {
    EXPECT_EQ(report(run, out, 20, &printed), 2) << printed;
    EXPECT_EQ(read_text_file(run / "run.json"), record_before) << "refused by " << out << ", yet the record changed";
  }
}

// A folder given as a symbolic link is bad input (exit 2, named as a link), never a failure to mark it.
TEST(NothingLost, AnOutputFolderGivenAsALinkIsRefusedAsBadInput) {
  const fs::path base = fresh_dir("output-link");
  const fs::path run = write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  fs::create_directories(base / "empty");
  fs::create_directory_symlink(base / "empty", base / "link");
  std::string printed;
  EXPECT_EQ(report(run, base / "link", 20, &printed), 2) << printed;
  EXPECT_NE(printed.find("is a symbolic link"), std::string::npos) << printed;
  EXPECT_EQ(merge({run}, base / "link", &printed), 2) << printed;
  EXPECT_NE(printed.find("is a symbolic link"), std::string::npos) << printed;
  EXPECT_THROW(claim_folder(base / "link", kResultsRootMarker, "results root", results_root_entries()), FolderRefused);
  EXPECT_TRUE(fs::is_empty(base / "empty"));
  // Judged alone, nothing is made: a folder that could not be made is refused, and one that could is not made.
  EXPECT_THROW(judge_folder("/proc/hazardlab-x", kResultsRootMarker, "results root", {}), FolderRefused);
  EXPECT_FALSE(judge_folder(base / "new" / "root", kResultsRootMarker, "results root", {}));
  EXPECT_FALSE(fs::exists(base / "new"));
  // An empty folder that takes no new entry (access(2) says yes to root there): refused before anything is written.
  std::error_code ec;
  if (fs::is_directory("/proc/driver", ec) && fs::is_empty("/proc/driver", ec))
    EXPECT_THROW(judge_folder("/proc/driver", kReportsMarker, "report folder", {}), FolderRefused);
}

TEST(NothingLost, PruningKeepsAReportSetOrARunFolderHoldingAUsersFile) {
  const fs::path base = fresh_dir("prune-users-files");
  const fs::path reports = base / "reports";
  std::vector<fs::path> runs;
  for (const char* id : {"20261101T000000Z-h-1", "20261102T000000Z-h-2"})
    runs.push_back(write_run_folder(base / "results", run_named(id)));
  std::string printed;
  ASSERT_EQ(report(runs[0], reports, 20, &printed), 0) << printed;
  std::ofstream(reports / "runs" / "20261101T000000Z-h-1" / "my-notes.txt") << "mine";
  ASSERT_EQ(report(runs[1], reports, 0, &printed), 0) << printed;
  EXPECT_EQ(read_text_file(reports / "runs" / "20261101T000000Z-h-1" / "my-notes.txt"), "mine");
  EXPECT_NE(printed.find("kept the report set " + (reports / "runs" / "20261101T000000Z-h-1").string()),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("my-notes.txt"), std::string::npos) << printed;
  // A run folder: a user's file beside the results, or inside a GPU's results, keeps it; hazardlab's own go.
  std::ofstream(runs[0] / "gpu0" / "my-analysis.txt") << "mine";
  const Pruned pruned = prune_marked_folders(base / "results" / "runs", kRunMarker, 0, {});
  EXPECT_TRUE(pruned.removed == std::vector<std::string>{"20261102T000000Z-h-2"});
  ASSERT_EQ(pruned.kept.size(), 1u);
  EXPECT_EQ(pruned.kept[0].foreign, "gpu0/my-analysis.txt");
  EXPECT_EQ(read_text_file(runs[0] / "gpu0" / "my-analysis.txt"), "mine");
}

// A name alone never makes a file hazardlab's: each user's file below looks like one hazardlab writes, and keeps
// its folder from being pruned; the files hazardlab did write beside them are still recognized.
TEST(NothingLost, PruningKeepsAUsersFileNamedLikeHazardlabsOwn) {
  const fs::path base = fresh_dir("prune-look-alikes");
  const RunContents contents = run_named("20261101T000000Z-h-1");
  const std::string a_case = contents.results.at(0).hazard_id + "--" + contents.results.at(0).variant_id;
  const fs::path runs = base / "results" / "runs";
  const auto run_with = [&](const fs::path& user_file) {
    fs::remove_all(base / "results");
    const fs::path run = write_run_folder(base / "results", contents);
    fs::create_directories(run / "logs" / "gpu0");
    std::ofstream(run / "logs" / "gpu0" / (a_case + ".log")) << "hazardlab's";
    std::ofstream(run / "logs" / "gpu0" / "perf--bandwidth.log") << "hazardlab's";
    std::ofstream(run / "gpu0" / ("." + a_case + ".json.tmp.42")) << "being written";
    fs::create_directories((run / user_file).parent_path());
    std::ofstream(run / user_file) << "mine";
    return run;
  };
  for (const fs::path user_file : {fs::path(".notes.tmp.42"), fs::path("nogpu/my--analysis.json"),
                                   fs::path("gpu0/my--analysis.json"), fs::path("logs/nogpu/mine.log"),
                                   fs::path("gpu0/perf/notes.json"), fs::path("gpu0/.notes.json.tmp.7")}) {
    const fs::path run = run_with(user_file);
    const Pruned pruned = prune_marked_folders(runs, kRunMarker, 0, {});
    ASSERT_EQ(pruned.kept.size(), 1u) << user_file;
    EXPECT_EQ(pruned.kept[0].foreign, user_file.string());
    EXPECT_EQ(read_text_file(run / user_file), "mine");
  }
  fs::remove(run_with(".notes.tmp.42") / ".notes.tmp.42");
  EXPECT_EQ(prune_marked_folders(runs, kRunMarker, 0, {}).removed.size(), 1u) << "hazardlab's own files go";
  // A report set: a page for a GPU the run does not have, and a temporary of no file the set holds.
  const fs::path run = write_run_folder(base / "results", contents);
  const fs::path reports = base / "reports";
  std::string printed;
  for (const char* user_file : {"gpu3.md", ".notes.tmp.42"}) {
    fs::remove_all(reports);
    ASSERT_EQ(report(run, reports, 20, &printed), 0) << printed;
    const fs::path set = reports / "runs" / contents.run.id;
    std::ofstream(set / user_file) << "mine";
    const Pruned pruned = prune_marked_folders(reports / "runs", kReportSetMarker, 0, {});
    ASSERT_EQ(pruned.kept.size(), 1u) << user_file;
    EXPECT_EQ(pruned.kept[0].foreign, user_file);
    EXPECT_EQ(read_text_file(set / user_file), "mine");
    EXPECT_EQ(report(run, reports, 20, &printed), 2) << "reporting again keeps " << user_file;
  }
}

TEST(NothingLost, ACaseNeverWritesIntoAPublishedReportSet) {
  const fs::path base = fresh_dir("report-set");
  const fs::path run = write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  ASSERT_EQ(report(run, base / "reports", 20), 0);
  const fs::path set = base / "reports" / "runs" / "20261101T000000Z-h-1";
  EXPECT_THROW(require_run_folder(set), std::invalid_argument);
  EXPECT_NO_THROW(require_run_folder(run));
  // A set published before sets had their own marker carries a run folder's: still refused.
  std::ofstream(set / kRunMarker);
  fs::remove(set / kReportSetMarker);
  EXPECT_THROW(require_run_folder(set), std::invalid_argument);
  std::string printed;
  EXPECT_EQ(report(base / "reports" / "current", base / "reports2", 20, &printed), 2) << printed;
}

TEST(NothingLost, ReportingARunStillGoingKeepsItsLockAndRecord) {
  const fs::path base = fresh_dir("running");
  RunContents c = run_named("20261101T000000Z-h-1");
  c.run.host = host_name();
  const fs::path run = write_run_folder(base / "results", c);
  LiveProcess owner;
  ASSERT_GT(owner.pid, 0);
  ASSERT_TRUE(acquire_run_lock(base / "results", LockHolder{c.run.id, host_name(), owner.pid, "now"}).acquired);
  std::string printed;
  report(run, base / "reports", 20, &printed);
  EXPECT_TRUE(fs::exists(base / "results" / kLockFile)) << "the lock of a run still going was released\n" << printed;
  EXPECT_NE(printed.find("still going"), std::string::npos) << printed;
  EXPECT_EQ(load_run_record(run).state, RunState::Running);
  // A second run cannot start beside it.
  EXPECT_FALSE(acquire_run_lock(base / "results", LockHolder{"other", host_name(), ::getpid(), "now"}).acquired);
  owner.end();
  report(run, base / "reports", 20, &printed);
  EXPECT_FALSE(fs::exists(base / "results" / kLockFile)) << printed;
  EXPECT_EQ(load_run_record(run).state, RunState::Finished);
}

TEST(NothingLost, RunIdsThatAreNotOneFolderNameAreRefused) {
  const std::vector<std::string> refused = {"", ".", "..", "../../x", "a/b", "a b", "x\n", std::string(129, 'a')};
  for (const std::string& bad : refused) {
    try {
      (void)RunId::parse(bad, "--run-id");
      ADD_FAILURE() << "'" << bad << "' taken for a run id";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--run-id '" + bad + "': a run id ", 0), 0u) << e.what();
    }
  }
  EXPECT_EQ(RunId::parse("20261122T000000Z-host.example-42", "--run-id").text(), "20261122T000000Z-host.example-42");
}

// A run record whose id is no folder name is refused as it is read, naming the record and the id: the report
// would write into the folder it names.
TEST(NothingLost, ARunRecordWhoseIdIsNoFolderNameIsRefused) {
  const fs::path base = fresh_dir("bad-record-id");
  RunContents c = complete_run(1);
  c.run.id = "../../x";
  const fs::path run = base / "run";
  fs::create_directories(run);
  std::ofstream(run / kRunRecordFile) << nlohmann::json(c.run).dump();
  try {
    (void)load_run_record(run);
    ADD_FAILURE() << "a record with the run id ../../x was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("has the run id '../../x': a run id holds only"), std::string::npos)
        << e.what();
  }
}

// One of hazardlab's own folders given as another kind is named as what it is, not as a user's files.
TEST(NothingLost, AFleetFolderGivenAsAReportFolderIsNamedAsOne) {
  const Fleet f = write_fleet("fleet-as-reports");
  const fs::path fleet = f.base / "fleet";
  ASSERT_NE(merge(f.runs, fleet), 2);
  std::string printed;
  EXPECT_EQ(report(f.runs[0], fleet, 20, &printed), 2) << printed;
  EXPECT_NE(printed.find("is a fleet report folder (it has a .hazardlab-fleet file made for it), not a report folder"),
            std::string::npos)
      << printed;
}

TEST(NothingLost, MergeNeverOverwritesAFleetJsonThatIsNotOurs) {
  const Fleet f = write_fleet("merge-foreign");
  const fs::path mine = f.base / "mine";
  fs::create_directories(mine);
  std::ofstream(mine / "fleet.json") << "{\"mine\": true}\n";
  std::ofstream(mine / "fleet.csv") << "my,data\n";
  std::string printed;
  EXPECT_EQ(merge(f.runs, mine, &printed), 2) << printed;
  EXPECT_NE(printed.find((mine / "fleet.json").string()), std::string::npos) << printed;
  EXPECT_EQ(read(mine / "fleet.json"), "{\"mine\": true}\n");
  EXPECT_EQ(read(mine / "fleet.csv"), "my,data\n");
  // A fleet report's own folder is marked, and merging into it again is fine.
  const fs::path fleet = f.base / "fleet";
  EXPECT_NE(merge(f.runs, fleet), 2);
  EXPECT_TRUE(fs::exists(fleet / kFleetMarker));
  EXPECT_NE(merge(f.runs, fleet, &printed), 2) << printed;
  // A file of an earlier fleet report that the user rewrote since is theirs now: never replaced.
  std::ofstream(fleet / "fleet.csv") << "my,edited,rows\n";
  EXPECT_EQ(merge(f.runs, fleet, &printed), 2) << printed;
  EXPECT_NE(printed.find((fleet / "fleet.csv").string()), std::string::npos) << printed;
  EXPECT_EQ(read(fleet / "fleet.csv"), "my,edited,rows\n");
  fs::remove(fleet / "fleet.csv");
  std::ofstream(fleet / "fleet.notes.md") << "mine\n";
  EXPECT_EQ(merge(f.runs, fleet, &printed), 2) << printed;
  EXPECT_EQ(read(fleet / "fleet.notes.md"), "mine\n");
  fs::remove(fleet / "fleet.notes.md");
  EXPECT_NE(merge(f.runs, fleet, &printed), 2) << printed;
}

TEST(NothingLost, ARunRecordNewerThanTheProgramIsRefusedWithTheReason) {
  const fs::path base = fresh_dir("newer");
  const fs::path run = write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  nlohmann::json j = nlohmann::json::parse(read(run / "run.json"));
  j["schema_version"] = kRunRecordSchemaVersion + 1;
  j["hazardlab_version"] = "9.0.0";
  write_file_atomically(run / "run.json", j.dump(2));
  std::string printed;
  EXPECT_EQ(report(run, base / "reports", 20, &printed), 2) << printed;
  EXPECT_NE(printed.find("newer"), std::string::npos) << printed;
  EXPECT_NE(printed.find("9.0.0"), std::string::npos) << printed;
  EXPECT_EQ(merge({run}, base / "fleet", &printed), 2) << printed;
  EXPECT_NE(printed.find("schema_version"), std::string::npos) << printed;
}

TEST(NothingLost, TwoRunFoldersWithOneRunIdAreRefused) {
  const Fleet f = write_fleet("one-id");
  const fs::path copy = f.base / "copy" / "runs" / f.runs[0].filename();
  fs::create_directories(copy.parent_path());
  fs::copy(f.runs[0], copy, fs::copy_options::recursive);
  std::string printed;
  EXPECT_EQ(merge({f.runs[0], copy}, f.base / "fleet", &printed), 2) << printed;
  EXPECT_NE(printed.find(copy.string()), std::string::npos) << printed;
  // The same folder given twice is still one run, read once.
  EXPECT_NE(merge({f.runs[0], f.runs[0]}, f.base / "fleet2", &printed), 2) << printed;
}

TEST(StrictNumber, PlainDecimalsAreRead) {
  EXPECT_EQ(parse_whole_number("100", 1, 1000), 100u);
  EXPECT_EQ(parse_whole_number("007", 1, 1000), 7u);
  EXPECT_DOUBLE_EQ(parse_decimal_number("0.8", 0, 1), 0.8);
  EXPECT_DOUBLE_EQ(parse_decimal_number(".5", 0, 1), 0.5);
  EXPECT_DOUBLE_EQ(parse_decimal_number("25e-2", 0, 1), 0.25);
  EXPECT_DOUBLE_EQ(parse_decimal_number("0", 0, 1), 0.0);
  EXPECT_DOUBLE_EQ(parse_decimal_number("-2.5", -10, 10, true), -2.5);
}

TEST(StrictNumber, EverythingElseIsRefused) {
  for (const char* bad : {"", " 100", "100 ", "+100", "-1", "1e2", "0x10", "1.0", "1_000", "18446744073709551616"})
    EXPECT_THROW(parse_whole_number(bad, 0, UINT64_MAX), NumberRefused) << bad;
  EXPECT_THROW(parse_whole_number("0", 1, 10), NumberRefused);
  EXPECT_THROW(parse_whole_number("11", 1, 10), NumberRefused);
  for (const char* bad : {"", " 0.5", "0.5 ", "+0.5", "-0.5", "0x0.8p0", "nan", "inf", "1e", ".", "0.5.1", "1,5",
                          "1e-400", "1e-310", "1e400", "0.5f"})
    EXPECT_THROW(parse_decimal_number(bad, -1e308, 1e308), NumberRefused) << bad;
  EXPECT_THROW(parse_decimal_number("1.0000001", 0, 1), NumberRefused);
  try {
    parse_decimal_number("1e-400", 0, 1);
    FAIL();
  } catch (const NumberRefused& e) {
    EXPECT_NE(std::string(e.what()).find("too small"), std::string::npos) << e.what();
  }
}

TEST(NothingLost, AResultsRootAndAReportFolderMustNotOverlap) {
  const fs::path base = fresh_dir("overlap");
  fs::create_directories(base / "real");
  fs::create_symlink(base / "real", base / "link");
  EXPECT_TRUE(folders_overlap(base / "a", base / "a"));
  EXPECT_TRUE(folders_overlap(base / "a", base / "a" / "reports"));
  EXPECT_TRUE(folders_overlap(base / "a" / "b" / "", base / "a"));
  EXPECT_TRUE(folders_overlap(base / "real", base / "link" / "new"));
  EXPECT_FALSE(folders_overlap(base / "results", base / "reports"));
  EXPECT_FALSE(folders_overlap(base / "a", base / "ab"));
}

TEST(NothingLost, AFileOrAResultsRootGivenAsARunFolderIsBadInput) {
  const fs::path base = fresh_dir("not-a-run");
  write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  std::ofstream(base / "file") << "x";
  std::string printed;
  EXPECT_EQ(report(base / "file", base / "reports", 20, &printed), 2) << printed;
  EXPECT_EQ(report(base / "results", base / "reports", 20, &printed), 2) << printed;
  EXPECT_NE(printed.find("is a results root"), std::string::npos) << printed;
}

TEST(NothingLost, ACaseThatFailedWithoutAResultFailsItsGpuNotPartial) {
  const fs::path base = fresh_dir("failed-no-result");
  RunContents c = run_named("20261101T000000Z-h-1");
  // Its result could not be written.
  const VariantResult& r = c.results.front();
  const std::string lost = device_label(r.device_index) + "/" + r.hazard_id + "/" + r.variant_id;
  c.results.erase(c.results.begin());
  const fs::path run = write_run_folder(base / "results", c);
  std::ostringstream o, e;
  EXPECT_EQ(report_run(run, ReportOptions{base / "reports", false, 20, {lost}}, o, e), 1) << o.str() << e.str();
  EXPECT_NE(o.str().find("FAIL: 1 case(s) FAILED without leaving a result"), std::string::npos) << o.str();
  const auto gpu0 = nlohmann::json::parse(read(base / "reports" / "latest" / "gpu0.json"));
  EXPECT_EQ(gpu0["verdict"], "FAIL");
  EXPECT_EQ(load_run_record(run).verdicts.at("gpu0"), "FAIL") << "the run record says the verdict the report says";
}

// ---- A folder is hazardlab's by what its entries are and by a marker made for it, never by names alone --------

namespace {

// `cp -a`: the same files, in new folders.
void copy_all(const fs::path& from, const fs::path& to) {
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

}  // namespace

TEST(NothingLost, AUsersFileNamedLatestOrCurrentIsNeverReplacedByALink) {
  for (const char* name : {"latest", "current"}) {
    const fs::path base = fresh_dir(std::string("user-") + name);
    const fs::path reports = base / "reports";
    fs::create_directories(reports);
    std::ofstream(reports / name) << "my notes";
    std::string printed;
    EXPECT_EQ(report(write_run_folder(base / "results", run_named("20261101T000000Z-h-1")), reports, 20, &printed), 2)
        << printed;
    EXPECT_NE(printed.find("holds " + std::string(name) + ", which is not a symbolic link"), std::string::npos)
        << printed;
    EXPECT_EQ(read_text_file(reports / name), "my notes");
    EXPECT_FALSE(fs::exists(reports / "runs"));
  }
}

TEST(NothingLost, AUsersRunsFolderIsNeverTakenOverAsAReportFolder) {
  const fs::path base = fresh_dir("user-runs");
  const fs::path reports = base / "reports";
  const std::string id = "20261101T000000Z-h-1";
  fs::create_directories(reports / "runs" / id);
  std::ofstream(reports / "runs" / id / "notes.txt") << "mine";
  std::string printed;
  EXPECT_EQ(report(write_run_folder(base / "results", run_named(id)), reports, 20, &printed), 2) << printed;
  EXPECT_NE(printed.find("holds runs/" + id + ", which is not a report set hazardlab made"), std::string::npos)
      << printed;
  EXPECT_EQ(read_text_file(reports / "runs" / id / "notes.txt"), "mine");
  EXPECT_FALSE(fs::exists(reports / "latest"));
}

TEST(NothingLost, AUsersRunsFolderIsNeverTakenOverAsAResultsRoot) {
  const fs::path base = fresh_dir("user-runs-root");
  fs::create_directories(base / "root" / "runs" / "mine");
  std::ofstream(base / "root" / "runs" / "mine" / "notes.txt") << "mine";
  EXPECT_THROW(claim_folder(base / "root", kResultsRootMarker, "results root",
                            {{std::string(kResultsRootMarker), OwnEntry::Kind::Marker},
                             {std::string(kRunsFolder), OwnEntry::Kind::FolderOfMarked, kRunMarker},
                             {std::string(kLockFile), OwnEntry::Kind::Lock}}),
               FolderRefused);
  EXPECT_EQ(read_text_file(base / "root" / "runs" / "mine" / "notes.txt"), "mine");
  EXPECT_FALSE(fs::exists(base / "root" / kResultsRootMarker));
}

// A report set copied beside the originals (cp -a) carries the original's marker: --keep must not prune it.
TEST(NothingLost, ACopiedReportSetIsNeverPrunedByKeep) {
  const fs::path base = fresh_dir("copied-set");
  const fs::path reports = base / "reports";
  std::string printed;
  ASSERT_EQ(report(write_run_folder(base / "results", run_named("20261101T000000Z-h-1")), reports, 20, &printed), 0)
      << printed;
  copy_all(reports / "runs" / "20261101T000000Z-h-1", reports / "runs" / "20261100T000000Z-my-copy");
  std::ofstream(reports / "runs" / "20261100T000000Z-my-copy" / "notes.txt") << "mine";
  // The copy is not hazardlab's: the report folder is refused as it is, and the copy is left whole.
  EXPECT_EQ(report(write_run_folder(base / "results", run_named("20261102T000000Z-h-2")), reports, 1, &printed), 2)
      << printed;
  EXPECT_NE(printed.find("was made for another folder"), std::string::npos) << printed;
  EXPECT_EQ(read_text_file(reports / "runs" / "20261100T000000Z-my-copy" / "notes.txt"), "mine");
  EXPECT_TRUE(fs::exists(reports / "runs" / "20261101T000000Z-h-1"));
}

TEST(NothingLost, ACopiedRunFolderIsNeverPrunedAndNeverWrittenInto) {
  const fs::path base = fresh_dir("copied-run");
  const fs::path run = write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  copy_all(run, base / "results" / "runs" / "20261100T000000Z-my-copy");
  EXPECT_EQ(prune_marked_folders(base / "results" / "runs", kRunMarker, 0, {}).removed,
            (std::vector<std::string>{"20261101T000000Z-h-1"}));
  EXPECT_TRUE(fs::exists(base / "results" / "runs" / "20261100T000000Z-my-copy" / "run.json"));
  EXPECT_THROW(require_run_folder(base / "results" / "runs" / "20261100T000000Z-my-copy"), std::invalid_argument);
}

TEST(NothingLost, MergeNeverOverwritesACopiedFleetFolder) {
  const fs::path base = fresh_dir("copied-fleet");
  const fs::path run = write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  std::string printed;
  ASSERT_EQ(merge({run}, base / "fleet", &printed), 0) << printed;
  copy_all(base / "fleet", base / "fleet-kept");
  const std::string kept = read_text_file(base / "fleet-kept" / "fleet.json");
  EXPECT_EQ(merge({run}, base / "fleet-kept", &printed), 2) << printed;
  EXPECT_EQ(read_text_file(base / "fleet-kept" / "fleet.json"), kept);
  EXPECT_EQ(merge({run}, base / "fleet", &printed), 0) << printed;  // the original stays hazardlab's
}

// A run folder's run.json, or a fleet folder's fleet.json, that is a link to a user's file: hazardlab writes
// them back, and would turn the link into a file. Refused, the link kept.
TEST(NothingLost, ALinkInPlaceOfAFileHazardlabWritesIsNeverReplaced) {
  const fs::path base = fresh_dir("links-kept");
  const fs::path run = write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  fs::copy_file(run / "run.json", base / "mine.json");
  fs::remove(run / "run.json");
  fs::create_symlink(base / "mine.json", run / "run.json");
  std::string printed;
  EXPECT_EQ(report(run, base / "reports", 20, &printed), 2) << printed;
  EXPECT_NE(printed.find("is a symbolic link"), std::string::npos) << printed;
  EXPECT_TRUE(fs::is_symlink(run / "run.json"));

  const fs::path good = write_run_folder(base / "results2", run_named("20261101T000000Z-h-2"));
  ASSERT_EQ(merge({good}, base / "fleet", &printed), 0) << printed;
  fs::remove(base / "fleet" / "fleet.json");
  fs::create_symlink(base / "mine.json", base / "fleet" / "fleet.json");
  EXPECT_EQ(merge({good}, base / "fleet", &printed), 2) << printed;
  EXPECT_TRUE(fs::is_symlink(base / "fleet" / "fleet.json"));
  // And the one writer every file goes through refuses too.
  EXPECT_THROW(write_file_atomically(base / "fleet" / "fleet.json", "x"), std::runtime_error);
}

TEST(NothingLost, AReportOrFleetFolderInsideTheRunFolderIsRefused) {
  const fs::path base = fresh_dir("nested-out");
  const fs::path run = write_run_folder(base / "results", run_named("20261101T000000Z-h-1"));
  std::string printed;
  EXPECT_EQ(report(run, run / "rep", 20, &printed), 2) << printed;
  EXPECT_NE(printed.find("one inside the other"), std::string::npos) << printed;
  EXPECT_FALSE(fs::exists(run / "rep"));
  EXPECT_EQ(merge({run}, run / "fleet", &printed), 2) << printed;
  EXPECT_FALSE(fs::exists(run / "fleet"));
}
