// The per-GPU report: built from results, written atomically, readable by a machine and a person.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "hazardlab/atomic_file.hpp"
#include "hazardlab/report.hpp"
#include "hazardlab/result_store.hpp"

using namespace hazardlab;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("hazardlab-selftest-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

DeviceFingerprint fake_device(int index) {
  DeviceFingerprint d;
  d.index = index;
  d.name = "Test GPU";
  d.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(index);
  d.pci_bus_id = "0000:0" + std::to_string(index) + ":00.0";
  d.compute_capability_major = 9;
  d.pcie.available = true;
  d.pcie.max_generation = 5;
  d.pcie.max_width = 16;
  return d;
}

VariantResult result(const std::string& hazard, const std::string& variant, int device, Outcome o) {
  VariantResult r;
  r.hazard_id = hazard;
  r.variant_id = variant;
  r.kind = "guard";
  r.device_index = device;
  r.outcome = o;
  r.trials = 100;
  r.seed = 7;
  return r;
}

}  // namespace

TEST(ResultStore, ResultsRoundTripThroughTheResultsDirectory) {
  const fs::path dir = fresh_dir("store");
  VariantResult r = result("h2d-pinned-mutate", "event-query", 0, Outcome::Incorrect);
  r.minimal_case = {{"bytes", 1}};
  r.observations["finding"] = "x";
  store_result(dir, r);
  const LoadedResults loaded = load_results(dir);
  ASSERT_EQ(loaded.results.size(), 1u);
  EXPECT_EQ(loaded.results[0].outcome, Outcome::Incorrect);
  EXPECT_EQ(loaded.results[0].minimal_case["bytes"], 1);
  EXPECT_EQ(*loaded.results[0].seed, 7u);
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

TEST(ResultStore, InventoryRoundTrips) {
  const fs::path dir = fresh_dir("inventory");
  DeviceInventory inv;
  inv.devices = {fake_device(0), fake_device(1)};
  store_inventory(dir, inv);
  const DeviceInventory back = load_inventory(dir);
  ASSERT_EQ(back.devices.size(), 2u);
  EXPECT_EQ(back.devices[1].uuid, inv.devices[1].uuid);
  EXPECT_EQ(back.devices[0].compute_capability(), "9.0");
  EXPECT_THROW(load_inventory(fresh_dir("noinventory")), std::runtime_error);
}

TEST(Reports, OneReportPerGpuEachWithItsOwnResults) {
  DeviceInventory inv;
  inv.devices = {fake_device(0), fake_device(1)};
  const std::vector<VariantResult> results = {result("h2d-pinned-mutate", "stream-synchronize", 0, Outcome::Passed),
                                              result("h2d-pinned-mutate", "stream-synchronize", 1, Outcome::Incorrect)};
  const auto reports = build_reports(Registry::instance().hazards(), inv, results, false);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].verdict, Verdict::Pass);
  EXPECT_EQ(reports[1].verdict, Verdict::Fail);
  EXPECT_EQ(reports[0].file_stem(), "gpu0");
  EXPECT_GT(reports[0].totals.at("not-run"), 0);
}

TEST(Reports, JsonFollowsTheDocumentedSchema) {
  DeviceInventory inv;
  inv.devices = {fake_device(0)};
  const auto reports = build_reports(Registry::instance().hazards(), inv,
                                     {result("h2d-pinned-mutate", "stream-synchronize", 0, Outcome::Passed)}, false);
  const nlohmann::json j = report_to_json(reports[0]);
  EXPECT_EQ(j["schema"], kReportSchema);
  EXPECT_EQ(j["schema_version"], kReportSchemaVersion);
  for (const char* key : {"hazardlab_version", "generated_at", "host", "device", "verdict", "verdict_reason", "totals",
                          "hazards", "no_device_reason", "unknown_results"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["device"]["pcie"]["max_raw_gbps_per_direction"].get<double>() > 62.9, true);
  const auto& hazard = j["hazards"][0];
  for (const char* key : {"id", "title", "rules", "requirements", "explanation", "variants"}) {
    EXPECT_TRUE(hazard.contains(key)) << key;
  }
  for (const auto& v : hazard["variants"]) {
    EXPECT_TRUE(v.contains("variant") && v.contains("kind") && v.contains("outcome") && v.contains("title"));
  }
}

TEST(Reports, NoGpuGivesOneSkippedReportThatSaysWhy) {
  DeviceInventory inv;
  inv.no_device_reason = "no NVIDIA driver";
  VariantResult skipped = result("h2d-pinned-mutate", "stream-synchronize", -1, Outcome::Skipped);
  const auto reports = build_reports(Registry::instance().hazards(), inv, {skipped}, false);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].verdict, Verdict::Skipped);
  EXPECT_EQ(reports[0].file_stem(), "nogpu");
  const std::string md = report_to_markdown(reports[0]);
  EXPECT_NE(md.find("no NVIDIA driver"), std::string::npos);
  EXPECT_NE(md.find("SKIPPED"), std::string::npos);
  EXPECT_EQ(md.find("**Verdict: PASS"), std::string::npos);
  EXPECT_EQ(build_reports(Registry::instance().hazards(), inv, {skipped}, true)[0].verdict, Verdict::Fail);
}

TEST(Reports, MarkdownShowsTheMinimalCaseAndHowToReplayIt) {
  DeviceInventory inv;
  inv.devices = {fake_device(0)};
  VariantResult r = result("h2d-pinned-mutate", "event-query", 0, Outcome::Incorrect);
  r.minimal_case = {{"bytes", 4097}};
  r.reason = "wrong data";
  const auto reports = build_reports(Registry::instance().hazards(), inv, {r}, false);
  const std::string md = report_to_markdown(reports[0]);
  EXPECT_NE(md.find("**Verdict: FAIL**"), std::string::npos);
  EXPECT_NE(md.find("\"bytes\":4097"), std::string::npos);
  EXPECT_NE(md.find("HAZARDLAB_SEED=7"), std::string::npos);
  EXPECT_NE(md.find("gpu0/h2d-pinned-mutate/event-query"), std::string::npos);
}

TEST(AtomicFile, AFailedWriteLeavesThePreviousFileWhole) {
  const fs::path dir = fresh_dir("atomic");
  const fs::path target = dir / "gpu0.json";
  write_file_atomically(target, "previous report\n");
  fs::create_directories(dir / "blocked.json");  // a directory where the file should go: rename fails
  EXPECT_THROW(write_file_atomically(dir / "blocked.json", "new"), std::runtime_error);
  write_file_atomically(target, "new report\n");
  EXPECT_EQ(read(target), "new report\n");
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << "left behind: " << entry.path();
  }
}

TEST(AtomicFile, WritesIntoANewDirectory) {
  const fs::path dir = fresh_dir("atomic-new") / "a" / "b";
  write_file_atomically(dir / "r.md", "x");
  EXPECT_EQ(read(dir / "r.md"), "x");
}
