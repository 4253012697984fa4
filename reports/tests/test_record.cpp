// The record of a run: results, catalogue, run record and the folders they live in. Nothing here
// needs CUDA; a run folder can be read anywhere.
#include <gtest/gtest.h>
#include <unistd.h>

#include "fake_run.hpp"
#include "hazardlab/result_store.hpp"
#include "hazardlab/folder_marker.hpp"
#include "hazardlab/results_root.hpp"
#include "hazardlab/run_id.hpp"
#include "hazardlab/run_record.hpp"

using namespace hazardlab;
using namespace hazardlab::testing;
namespace fs = std::filesystem;

namespace {

// Every entry of a folder tree with its content, to prove that a refusal changed nothing.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> all;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    all[e.path().string()] = e.is_regular_file() ? read(e.path()) : std::string("<dir>");
  }
  return all;
}

class InFolder {
 public:
  explicit InFolder(const fs::path& dir) : previous_(fs::current_path()) { fs::current_path(dir); }
  ~InFolder() { fs::current_path(previous_); }

 private:
  fs::path previous_;
};

}  // namespace

TEST(ResultStore, ResultsRoundTripWithTypedFindings) {
  const fs::path dir = fresh_dir("store");
  VariantResult r = result("h2d-pinned-mutate", "event-query", 0, Outcome::Passed);
  r.finding = "the call returned at once in 100 of 100 trials";
  r.mutation_check = MutationCheck{true, Outcome::Incorrect, "wrong data", {{"bytes", 1}}};
  r.observations.per_size = {{4096, 10, 0, 3}, {65536, 10, 2, 1}};
  store_result(dir, r);
  const LoadedResults loaded = load_results(dir);
  ASSERT_EQ(loaded.results.size(), 1u);
  const VariantResult& back = loaded.results[0];
  EXPECT_EQ(back.outcome, Outcome::Passed);
  EXPECT_EQ(back.kind, VariantKind::Guard);
  EXPECT_EQ(back.finding, r.finding);
  ASSERT_TRUE(back.mutation_check);
  EXPECT_TRUE(back.mutation_check->caught);
  EXPECT_EQ(back.mutation_check->outcome_without_synchronization, Outcome::Incorrect);
  ASSERT_EQ(back.observations.per_size.size(), 2u);
  EXPECT_EQ(back.observations.per_size[1].bytes, 65536u);
  EXPECT_EQ(back.observations.per_size[1].waited, 2);
  EXPECT_EQ(*back.seed, 7u);
  // On disk the findings keep the places reports of schema version 1 had them.
  const auto j = nlohmann::json::parse(read(result_path(dir, r)));
  EXPECT_EQ(j["observations"]["mutation_check"]["caught"], true);
  EXPECT_EQ(j["kind"], "guard");
}

TEST(ResultStore, AnUnreadableResultBecomesAFailedCaseNotASilentGap) {
  const fs::path dir = fresh_dir("unreadable");
  fs::create_directories(dir / "gpu0");
  std::ofstream(dir / "gpu0" / "h2d-pinned-mutate--event-query.json") << "{ truncated";
  std::ofstream(dir / "gpu0" / "garbage.json") << "not json";
  const LoadedResults loaded = load_results(dir);
  ASSERT_EQ(loaded.results.size(), 1u);
  EXPECT_EQ(loaded.results[0].outcome, Outcome::Failed);
  EXPECT_NE(loaded.results[0].reason.find("unreadable"), std::string::npos);
  EXPECT_EQ(loaded.unreadable.size(), 1u);
}

TEST(ResultStore, AResultThatCannotBeTrueIsFailedWithTheReason) {
  const fs::path dir = fresh_dir("impossible");
  VariantResult zero = result("h2d-pinned-mutate", "stream-synchronize", 0, Outcome::Passed);
  zero.trials = 0;
  VariantResult short_control =
      result("h2d-pinned-mutate", "unsafe-mutate-after-call", 0, Outcome::Reproduced, VariantKind::Control);
  short_control.reproduced = 40;
  store_result(dir, zero);
  store_result(dir, short_control);
  const LoadedResults loaded = load_results(dir);
  ASSERT_EQ(loaded.results.size(), 2u);
  for (const VariantResult& r : loaded.results) {
    EXPECT_EQ(r.outcome, Outcome::Failed) << r.variant_id;
    EXPECT_NE(r.reason.find("cannot be true"), std::string::npos) << r.reason;
  }
  EXPECT_NE(impossible_content(zero).find("0 trials"), std::string::npos);
  EXPECT_EQ(impossible_content(result("h", "v", 0, Outcome::Passed)), "");
  VariantResult skipped = result("h", "v", 0, Outcome::Skipped);
  skipped.trials = 0;
  EXPECT_EQ(impossible_content(skipped), "");
}

TEST(ResultStore, InventoryAndCatalogueRoundTrip) {
  const fs::path dir = fresh_dir("inventory");
  DeviceInventory inv;
  inv.devices = {fake_device(0), fake_device(1)};
  store_inventory(dir, inv);
  store_catalog(dir, fake_catalog());
  const DeviceInventory back = load_inventory(dir);
  ASSERT_EQ(back.devices.size(), 2u);
  EXPECT_EQ(back.devices[1].uuid, inv.devices[1].uuid);
  EXPECT_EQ(back.devices[0].compute_capability(), "9.0");
  const Catalog catalog = load_catalog(dir);
  ASSERT_EQ(catalog.hazards.size(), 2u);
  EXPECT_EQ(catalog.variant_count(), 4u);
  EXPECT_EQ(catalog.hazards[1].variants[0].kind, VariantKind::Rule);
  EXPECT_EQ(catalog.hazards[1].requirements[0], "canMapHostMemory = 1");
  EXPECT_THROW(load_inventory(fresh_dir("noinventory")), std::runtime_error);
}

TEST(Layout, OneNameForEachDevice) {
  EXPECT_EQ(device_label(0), "gpu0");
  EXPECT_EQ(device_label(-1), "nogpu");
  EXPECT_EQ(device_index_of_label("gpu12"), 12);
  EXPECT_EQ(device_index_of_label("nogpu"), -1);
  EXPECT_EQ(device_index_of_label("gpu"), -2);
  EXPECT_EQ(device_index_of_label("gpux"), -2);
  EXPECT_EQ(device_index_of_label("perf"), -2);
}

TEST(RunRecord, RoundTripsWithEverySettingAndTheSelection) {
  const fs::path dir = fresh_dir("run-record");
  RunRecord r = complete_run(1).run;
  r.pid = 4242;
  r.sanitizer = "memcheck";
  r.warnings = {"HAZARDLAB_TRAILS is not a hazardlab setting"};
  r.selection = selection_from_ctest_command({"ctest", "--test-dir", "build", "-R", "x/", "-j8", "-L", "perf"});
  store_run_record(dir, r);
  const RunRecord back = load_run_record(dir);
  EXPECT_EQ(back.id, r.id);
  EXPECT_EQ(back.pid, 4242);
  EXPECT_EQ(back.sanitizer, "memcheck");
  EXPECT_EQ(back.registered, r.registered);
  EXPECT_EQ(back.state, RunState::Running);
  ASSERT_NE(back.setting("HAZARDLAB_TRIALS"), nullptr);
  EXPECT_EQ(back.setting("HAZARDLAB_TRIALS")->value, "100");
  EXPECT_EQ(back.selection.filters, (std::vector<std::string>{"-R x/", "-L perf"}));
  EXPECT_FALSE(back.selection.all());
  EXPECT_ANY_THROW(load_run_record(fresh_dir("no-run-record")));
}

// The profile is written as its word and read back as the enum; a record without one ran every case, and one
// naming no profile is refused, naming the word.
TEST(RunRecord, TheProfileIsReadBackAsItsEnum) {
  RunRecord r = complete_run(1).run;
  r.profile = RunProfile::Soak;
  nlohmann::json j = r;
  EXPECT_EQ(j.at("profile"), "soak");
  EXPECT_EQ(j.get<RunRecord>().profile, RunProfile::Soak);
  j.erase("profile");
  EXPECT_EQ(j.get<RunRecord>().profile, RunProfile::Validation);
  j["profile"] = "healthy";
  try {
    (void)j.get<RunRecord>();
    ADD_FAILURE() << "a record naming no profile was read";
  } catch (const nlohmann::json::exception& e) {
    EXPECT_NE(std::string(e.what()).find("unknown run profile 'healthy'"), std::string::npos) << e.what();
  }
}

TEST(RunRecord, SelectionReadsEveryNarrowingOption) {
  EXPECT_TRUE(selection_from_ctest_command({"ctest", "--preset", "suite"}).all());
  EXPECT_TRUE(selection_from_ctest_command({}).all());
  const auto s = selection_from_ctest_command(
      {"ctest", "--rerun-failed", "-E", "perf", "--label-regex=gpu0", "-LE", "kind:guard", "-I", "1,3", "-U"});
  EXPECT_EQ(s.filters, (std::vector<std::string>{"--rerun-failed", "-E perf", "--label-regex=gpu0", "-LE kind:guard",
                                                 "-I 1,3", "-U"}));
}

TEST(RunRecord, IdsSayHostTimeAndProcessAndAreSafeAsFolderNames) {
  EXPECT_EQ(RunId::make("20261122T101500Z", "node-7.cluster", 99).text(), "20261122T101500Z-node-7.cluster-99");
  EXPECT_EQ(RunId::make("20261122T101500Z", "a/b c", 1).text(), "20261122T101500Z-a_b_c-1");
}

TEST(ResultsRoot, ANewOrEmptyFolderIsClaimedAndMarked) {
  const fs::path base = fresh_dir("claim");
  claim_folder(base / "new" / "root", ".marker", "results root", {});
  EXPECT_TRUE(fs::exists(base / "new" / "root" / ".marker"));
  fs::create_directories(base / "empty");
  claim_folder(base / "empty", ".marker", "results root", {});
  EXPECT_TRUE(fs::exists(base / "empty" / ".marker"));
  // Once marked, hazardlab's own entries are expected there.
  fs::create_directories(base / "empty" / "runs");
  EXPECT_NO_THROW(claim_folder(base / "empty", ".marker", "results root", {{"runs", OwnEntry::Kind::FolderOfMarked, ".run"}}));
  // Another run's marker on its way into place is hazardlab's own, not a foreign file.
  fs::create_directories(base / "racing");
  std::ofstream(base / "racing" / "..marker.tmp.4242");
  EXPECT_NO_THROW(claim_folder(base / "racing", ".marker", "results root", {{".marker", OwnEntry::Kind::Marker}}));
  fs::create_directories(base / "racing2");
  std::ofstream(base / "racing2" / "..marker.tmp.42x");
  EXPECT_THROW(claim_folder(base / "racing2", ".marker", "results root", {{".marker", OwnEntry::Kind::Marker}}), FolderRefused);
}

TEST(ResultsRoot, AFolderWithForeignFilesIsRefusedAndLeftAsItWas) {
  const fs::path base = fresh_dir("foreign");
  fs::create_directories(base / "mine" / "sub");
  std::ofstream(base / "mine" / "thesis.tex") << "years of work";
  std::ofstream(base / "mine" / "sub" / "data.csv") << "1,2";
  const auto before = snapshot(base);
  try {
    claim_folder(base / "mine", ".marker", "results root",
                 {{"runs", OwnEntry::Kind::FolderOfMarked, ".run"}, {"lock", OwnEntry::Kind::Lock}});
    FAIL() << "a folder with foreign files was claimed";
  } catch (const FolderRefused& e) {
    EXPECT_NE(std::string(e.what()).find("thesis.tex"), std::string::npos) << e.what();
  }
  EXPECT_EQ(snapshot(base), before);
}

TEST(ResultsRoot, ARegularFileTheCurrentFolderAndTheRootAreRefused) {
  const fs::path base = fresh_dir("refuse");
  std::ofstream(base / "results") << "not a folder";
  fs::create_directories(base / "cwd");
  const auto before = snapshot(base);
  EXPECT_THROW(claim_folder(base / "results", ".marker", "results root", {}), FolderRefused);
  EXPECT_THROW(claim_folder("/", ".marker", "results root", {}), FolderRefused);
  {
    InFolder in(base / "cwd");
    EXPECT_THROW(claim_folder(".", ".marker", "results root", {}), FolderRefused);
  }
  EXPECT_EQ(snapshot(base), before);
  EXPECT_THROW(claim_folder("", ".marker", "results root", {}), FolderRefused);
}

TEST(ResultsRoot, PruningRemovesOnlyOldMarkedFolders) {
  const fs::path base = fresh_dir("prune");
  for (const char* name : {"20260101-a", "20260102-b", "20260103-c", "20260104-d"}) {
    fs::create_directories(base / name);
    write_marker(base / name, ".run", "A run folder written by hazardlab.");
  }
  fs::create_directories(base / "00000000-foreign");  // no marker: never touched
  // A user's copy of a run (cp -a) carries the marker's text, made for another folder: never touched either.
  fs::create_directories(base / "00000000-copy");
  fs::copy_file(base / "20260101-a" / ".run", base / "00000000-copy" / ".run");
  std::ofstream(base / "00000000-copy" / "notes.txt") << "mine";
  // A marker written by hand (no folder named) is no marker either.
  fs::create_directories(base / "00000001-by-hand");
  std::ofstream(base / "00000001-by-hand" / ".run") << "A run folder written by hazardlab.\n";
  const auto removed = prune_marked_folders(base, ".run", 2, {"20260101-a"}).removed;
  EXPECT_EQ(removed, (std::vector<std::string>{"20260102-b"}));
  EXPECT_TRUE(fs::exists(base / "20260101-a"));
  EXPECT_TRUE(fs::exists(base / "00000000-foreign"));
  EXPECT_EQ(read_text_file(base / "00000000-copy" / "notes.txt"), "mine");
  EXPECT_TRUE(fs::exists(base / "00000001-by-hand"));
  EXPECT_TRUE(fs::exists(base / "20260104-d"));
}

TEST(RunLock, ASecondRunIsRefusedWithTheHolderNamed) {
  const fs::path root = fresh_dir("lock");
  const LockHolder first{"run-1", host_name(), static_cast<long>(::getpid()), "2026-11-22T00:00:00Z"};
  EXPECT_TRUE(acquire_run_lock(root, first).acquired);
  const LockAttempt second = acquire_run_lock(root, {"run-2", host_name(), 1, "later"});
  EXPECT_FALSE(second.acquired);
  ASSERT_TRUE(second.holder);
  EXPECT_EQ(second.holder->run_id, "run-1");
  EXPECT_NE(second.holder->describe().find("pid " + std::to_string(::getpid())), std::string::npos);
  EXPECT_FALSE(release_run_lock(root, "run-2"));  // not its lock
  EXPECT_TRUE(release_run_lock(root, "run-1"));
  EXPECT_TRUE(acquire_run_lock(root, {"run-2", host_name(), 1, "later"}).acquired);
}

TEST(RunLock, ALockLeftByAProcessThatIsGoneIsTakenOver) {
  const fs::path root = fresh_dir("stale-lock");
  // A pid that cannot be running: beyond Linux's largest.
  EXPECT_TRUE(acquire_run_lock(root, {"killed-run", host_name(), 99999999, "earlier"}).acquired);
  const LockAttempt next = acquire_run_lock(root, {"next-run", host_name(), ::getpid(), "now"});
  EXPECT_TRUE(next.acquired);
  ASSERT_TRUE(next.taken_over);
  EXPECT_EQ(next.taken_over->run_id, "killed-run");
  // A holder on another host cannot be checked: it is never taken over.
  const fs::path other = fresh_dir("remote-lock");
  EXPECT_TRUE(acquire_run_lock(other, {"remote", "another-host", 99999999, "earlier"}).acquired);
  EXPECT_FALSE(acquire_run_lock(other, {"mine", host_name(), ::getpid(), "now"}).acquired);
}

// A run record with a field of the wrong type names the field, not only the type it wanted.
TEST(RunRecordFile, AWrongTypeNamesTheField) {
  const fs::path dir = fresh_dir("wrong-type");
  RunRecord run;
  run.id = "20261101T000000Z-h-1";
  nlohmann::json j = run;
  j["host"] = 7;
  std::ofstream(dir / "run.json") << j.dump();
  try {
    (void)load_run_record(dir);
    ADD_FAILURE() << "a run record with a number for its id was read";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("/host"), std::string::npos) << e.what();
  }
}
