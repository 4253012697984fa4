// Publishing a run's reports: a complete run becomes current, a partial one never replaces it,
// each set is whole, and a run folder alone is enough to report it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_run.hpp"
#include "fleet_fixture.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/folder_marker.hpp"
#include "hazardlab/publish.hpp"
#include "hazardlab/result_store.hpp"
#include "hazardlab/results_root.hpp"

using namespace hazardlab;
using namespace hazardlab::testing;
namespace fs = std::filesystem;

namespace {

std::string current_run(const fs::path& reports) {
  return fs::read_symlink(reports / kCurrentLink).filename().string();
}

int report(const fs::path& run_dir, const fs::path& out, std::string* printed = nullptr, bool require_gpu = false) {
  std::ostringstream o, e;
  const int rc = report_run(run_dir, ReportOptions{out, require_gpu, kDefaultKeepRuns}, o, e);
  if (printed) *printed = o.str() + e.str();
  return rc;
}

}  // namespace

TEST(Publish, ACompleteRunBecomesCurrentAndAPartialOneDoesNotReplaceIt) {
  const fs::path base = fresh_dir("publish");
  RunContents full = complete_run(1);
  full.run.id = "20261122T100000Z-host-1";
  const fs::path first = write_run_folder(base / "results", full);
  ASSERT_EQ(report(first, base / "reports"), 0);
  EXPECT_EQ(current_run(base / "reports"), full.run.id);
  EXPECT_TRUE(load_run_record(first).complete);

  RunContents lab = complete_run(1);
  lab.run.id = "20261122T100500Z-host-2";
  lab.results.resize(1);
  lab.perf.clear();
  const fs::path second = write_run_folder(base / "results", lab);
  std::string printed;
  EXPECT_EQ(report(second, base / "reports", &printed), 0) << printed;
  EXPECT_NE(printed.find("PARTIAL"), std::string::npos) << printed;
  EXPECT_EQ(current_run(base / "reports"), full.run.id);
  EXPECT_EQ(fs::read_symlink(base / "reports" / kLatestLink).filename().string(), lab.run.id);
  const auto partial = nlohmann::json::parse(read(base / "reports" / "runs" / lab.run.id / "gpu0.json"));
  EXPECT_EQ(partial["verdict"], "PARTIAL");
  EXPECT_FALSE(partial["run"]["complete"].get<bool>());
  const auto current = nlohmann::json::parse(read(base / "reports" / "current" / "gpu0.json"));
  EXPECT_EQ(current["verdict"], "PASS");
  EXPECT_EQ(current["run"]["id"], full.run.id);
  const RunRecord record = load_run_record(second);
  EXPECT_FALSE(record.complete);
  EXPECT_EQ(record.state, RunState::Finished);
  EXPECT_EQ(record.not_run.size(), 6u);
  EXPECT_EQ(record.verdicts.at("gpu0"), "PARTIAL");
  // Required to validate, a partial run fails.
  EXPECT_EQ(report(second, base / "reports", nullptr, true), 1);
}

TEST(Publish, EveryFormatOfASetIsWrittenTogether) {
  const fs::path base = fresh_dir("publish-set");
  const RunContents run = complete_run(2);
  ASSERT_EQ(report(write_run_folder(base / "results", run), base / "reports"), 0);
  for (const char* name : {"gpu0.json", "gpu0.md", "gpu0.html", "gpu0.junit.xml", "gpu1.json", "gpu1.junit.xml",
                           "run.json", ".hazardlab-report-set"}) {
    EXPECT_TRUE(fs::exists(base / "reports" / "current" / name)) << name;
  }
  for (const auto& e : fs::directory_iterator(base / "reports" / "runs")) {
    EXPECT_EQ(e.path().filename().string().find(".staging"), std::string::npos) << e.path();
  }
  // Reporting the same run again replaces its set whole.
  ASSERT_EQ(report(run_folder(base / "results", run.run.id), base / "reports"), 0);
  EXPECT_TRUE(fs::exists(base / "reports" / "current" / "gpu1.html"));
}

TEST(Publish, AFailingGpuFailsTheReportAndIsStillPublished) {
  const fs::path base = fresh_dir("publish-fail");
  RunContents run = complete_run(1);
  run.results[1].outcome = Outcome::Incorrect;
  EXPECT_EQ(report(write_run_folder(base / "results", run), base / "reports"), 1);
  EXPECT_EQ(nlohmann::json::parse(read(base / "reports" / "current" / "gpu0.json"))["verdict"], "FAIL");
}

TEST(Publish, ARunThatNeverStartedWritesNothing) {
  const fs::path base = fresh_dir("publish-none");
  fs::create_directories(base / "results" / "runs" / "refused-run");
  std::string printed;
  EXPECT_EQ(report(base / "results" / "runs" / "refused-run", base / "reports", &printed), 2);
  EXPECT_NE(printed.find("did not start"), std::string::npos) << printed;
  EXPECT_EQ(report(base / "results" / "runs" / "missing-run", base / "reports", &printed), 2);
  EXPECT_NE(printed.find("did not start"), std::string::npos) << printed;
  EXPECT_FALSE(fs::exists(base / "reports"));
}

// What is no run folder hazardlab wrote is bad input (exit 2), as merge says of it: a user's folder with a run.json
// of its own, a copy without its catalogue.
TEST(Publish, AFolderThatIsNoWholeRunFolderIsBadInput) {
  const fs::path base = fresh_dir("publish-not-a-run");
  fs::create_directories(base / "mine");
  std::ofstream(base / "mine" / "run.json") << "{\"my\": \"data\"}\n";
  std::string printed;
  EXPECT_EQ(report(base / "mine", base / "reports", &printed), 2) << printed;
  EXPECT_NE(printed.find(base / "mine"), std::string::npos) << printed;
  const fs::path run = write_run_folder(base / "results", complete_run(1));
  fs::remove(run / "catalog.json");
  EXPECT_EQ(report(run, base / "reports", &printed), 2) << printed;
  EXPECT_NE(printed.find("catalog.json"), std::string::npos) << printed;
  EXPECT_FALSE(fs::exists(base / "reports"));
}

TEST(Publish, AReportFolderWithForeignFilesIsRefusedUntouched) {
  const fs::path base = fresh_dir("publish-foreign");
  fs::create_directories(base / "reports");
  std::ofstream(base / "reports" / "notes.txt") << "mine";
  std::string printed;
  EXPECT_EQ(report(write_run_folder(base / "results", complete_run(1)), base / "reports", &printed), 2);
  EXPECT_NE(printed.find("notes.txt"), std::string::npos) << printed;
  EXPECT_EQ(std::distance(fs::directory_iterator(base / "reports"), fs::directory_iterator()), 1);
}

TEST(Publish, TheReportLetsGoOfItsOwnLockOnly) {
  const fs::path base = fresh_dir("publish-lock");
  const RunContents run = complete_run(1);
  const fs::path dir = write_run_folder(base / "results", run);
  // Its owner has ended (a run still going keeps its lock: test_nothing_lost).
  const pid_t ended = ::fork();
  if (ended == 0) ::_exit(0);
  ::waitpid(ended, nullptr, 0);
  ASSERT_TRUE(acquire_run_lock(base / "results", {run.run.id, host_name(), ended, "t"}).acquired);
  ASSERT_EQ(report(dir, base / "reports"), 0);
  EXPECT_FALSE(fs::exists(base / "results" / "lock"));
  ASSERT_TRUE(acquire_run_lock(base / "results", {"another-run", host_name(), ::getpid(), "t"}).acquired);
  ASSERT_EQ(report(dir, base / "reports"), 0);
  EXPECT_TRUE(fs::exists(base / "results" / "lock"));
}

TEST(Publish, OldSetsArePrunedButCurrentIsKept) {
  const fs::path base = fresh_dir("publish-prune");
  RunContents full = complete_run(1);
  full.run.id = "20261101T000000Z-h-1";
  ASSERT_EQ(report(write_run_folder(base / "results", full), base / "reports"), 0);
  for (int i = 0; i < 3; ++i) {
    RunContents lab = complete_run(1);
    lab.run.id = "2026111" + std::to_string(i + 2) + "T000000Z-h-2";
    lab.results.resize(1);
    const fs::path dir = write_run_folder(base / "results", lab);
    std::ostringstream o, e;
    ASSERT_EQ(report_run(dir, ReportOptions{base / "reports", false, 1}, o, e), 0) << e.str();
  }
  EXPECT_TRUE(fs::exists(base / "reports" / "runs" / full.run.id));             // current
  EXPECT_TRUE(fs::exists(base / "reports" / "runs" / "20261114T000000Z-h-2"));  // latest
  EXPECT_FALSE(fs::exists(base / "reports" / "runs" / "20261112T000000Z-h-2"));
  EXPECT_EQ(current_run(base / "reports"), full.run.id);
}

// A GPU required by the report tool's --require-gpu is named so, not as a variable that was never set.
TEST(Publish, AGpuRequiredIsNamedAsItWasGiven) {
  const fs::path base = fresh_dir("require-gpu-named");
  const fs::path run = write_run_folder(base / "results", complete_run(0));
  ReportOptions options{base / "reports", true, kDefaultKeepRuns};
  options.require_gpu_given_as = "--require-gpu";
  std::ostringstream o, e;
  EXPECT_EQ(report_run(run, options, o, e), 1);
  const std::string printed = o.str() + e.str();
  EXPECT_NE(printed.find("no usable GPU, and --require-gpu requires one"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("HAZARDLAB_REQUIRE_GPU"), std::string::npos) << printed;
  // A Prometheus folder from the environment is named by its variable.
  options.prometheus_dir = base / "no-such-folder";
  options.prometheus_given_as = "HAZARDLAB_PROMETHEUS_DIR";
  std::ostringstream o2, e2;
  EXPECT_EQ(report_run(run, options, o2, e2), 2);
  EXPECT_NE(e2.str().find("HAZARDLAB_PROMETHEUS_DIR='" + (base / "no-such-folder").string() + "' is not a folder"),
            std::string::npos)
      << e2.str();
}
