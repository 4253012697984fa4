// The fleet report's files and command: JSON with the documented keys, a CSV that parses back,
// a self-contained escaped HTML page, an output folder that is ours or refused, exit status 2 for
// bad input.
#include <gtest/gtest.h>

#include <sstream>

#include "fleet_fixture.hpp"

using namespace hazardlab;
using namespace hazardlab::testing;
namespace fs = std::filesystem;

namespace {

// RFC 4180, as a spreadsheet reads it: quoted fields may hold commas, doubled quotes and line
// breaks; records end with CRLF.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    std::string& field = records.back().back();
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().emplace_back();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      records.emplace_back(1);
    } else {
      field += c;
    }
  }
  if (records.back() == std::vector<std::string>(1)) records.pop_back();  // after the last CRLF
  return records;
}

std::map<std::string, std::string> csv_row(const std::vector<std::vector<std::string>>& csv, std::size_t i) {
  std::map<std::string, std::string> row;
  for (std::size_t c = 0; c < csv[0].size(); ++c) row[csv[0][c]] = csv[i][c];
  return row;
}

}  // namespace

TEST(FleetOutput, EveryFormatIsWrittenAndTheCsvParsesBackOneRowPerGpu) {
  const Fleet fleet = write_fleet("fleet-out");
  const FleetReport report = merge_runs(fleet.runs, fleet_options());
  const auto written = write_fleet_report(report, fleet.base / "fleet");
  ASSERT_EQ(written.size(), 4u);
  for (const char* name : {"fleet.json", "fleet.md", "fleet.html", "fleet.csv"}) {
    EXPECT_TRUE(fs::exists(fleet.base / "fleet" / name)) << name;
  }
  const auto csv = parse_csv(read(fleet.base / "fleet" / "fleet.csv"));
  ASSERT_EQ(csv.size(), 6u);  // header and five GPUs
  EXPECT_EQ(csv[0].size(), 24u);
  for (const auto& record : csv) EXPECT_EQ(record.size(), csv[0].size());
  const auto a0 = csv_row(csv, 1);
  EXPECT_EQ(a0.at("host"), "node-a");
  EXPECT_EQ(a0.at("profile"), "validation");
  EXPECT_EQ(a0.at("pci_bus_id"), "0000:00:00.0");
  EXPECT_EQ(a0.at("verdict"), "PASS");
  EXPECT_EQ(a0.at("pinned_h2d_gbps"), "55.30");
  EXPECT_EQ(a0.at("controls_reproduced"), "1");
  EXPECT_EQ(a0.at("controls_run"), "1");
  EXPECT_EQ(a0.at("superseded_runs"), "2");
  EXPECT_EQ(a0.at("newer_partial_runs"), "20261122T060000Z-node-a-1:PARTIAL");
  EXPECT_EQ(a0.at("partial"), "false");
  EXPECT_EQ(csv_row(csv, 2).at("failing_cases"), "h2d-pinned-mutate/stream-synchronize");
  EXPECT_EQ(csv_row(csv, 3).at("partial"), "true");
  const auto slow = csv_row(csv, 5);
  EXPECT_EQ(slow.at("stale"), "true");
  EXPECT_EQ(slow.at("outlier"), "true");
  EXPECT_EQ(slow.at("outlier_reason"), report.rows[4].outlier_reason);  // holds commas: quoted
  EXPECT_EQ(slow.at("failing_checks"), "pinned-h2d-link-fraction");
  EXPECT_EQ(slow.at("pinned_h2d_gbps"), "41.00");
}

TEST(FleetOutput, QuotesCommasAndLineBreaksSurviveTheCsv) {
  const fs::path base = fresh_dir("fleet-csv");
  RunContents none = host_run("node-d", "2026-11-20T00:00:00Z", 0);
  none.inventory.no_device_reason = "no \"NVIDIA\" driver, at all\r\nreally";
  const FleetReport report = merge_runs({write_run_folder(base / "d", none)}, fleet_options());
  const auto csv = parse_csv(fleet_to_csv(report));
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_EQ(csv_row(csv, 1).at("no_device_reason"), none.inventory.no_device_reason);
  EXPECT_EQ(csv_row(csv, 1).at("verdict"), "SKIPPED");
  EXPECT_EQ(csv_row(csv, 1).at("pinned_h2d_gbps"), "");
}

TEST(FleetOutput, JsonCarriesTheDocumentedKeys) {
  const FleetReport report = merge_runs(write_fleet("fleet-json").runs, fleet_options());
  const nlohmann::json j = fleet_to_json(report);
  EXPECT_EQ(j["schema"], "hazardlab.fleet-report");
  EXPECT_EQ(j["schema_version"], 1);
  for (const char* key : {"hazardlab_version", "generated_at", "newest_run_started_at", "rules", "counts",
                          "exit_status", "rows", "models", "runs", "notes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j.size(), 12u);
  EXPECT_EQ(j["exit_status"], 1);
  EXPECT_EQ(j["counts"]["PASS"], 2);
  EXPECT_EQ(j["counts"]["INCONCLUSIVE"], 0);
  EXPECT_EQ(j["rules"]["outlier_mads"], 3.5);
  EXPECT_EQ(j["rules"]["stale_after_hours"], 168);
  ASSERT_EQ(j["rows"].size(), 5u);
  const auto& row = j["rows"][0];
  for (const char* key : {"key",
                          "host",
                          "has_gpu",
                          "pci_bus_id",
                          "uuid",
                          "nvidia_smi_index",
                          "cuda_index",
                          "mig",
                          "name",
                          "driver_release",
                          "no_device_reason",
                          "verdict",
                          "verdict_reason",
                          "failing_checks",
                          "failing_cases",
                          "inconclusive_cases",
                          "pinned_h2d_gbps",
                          "pinned_d2h_gbps",
                          "controls",
                          "run",
                          "partial",
                          "stale",
                          "stale_reason",
                          "outlier",
                          "outlier_reason",
                          "superseded_runs",
                          "newer_partial_runs"}) {
    EXPECT_TRUE(row.contains(key)) << key;
  }
  EXPECT_EQ(row.size(), 27u);
  EXPECT_EQ(row["run"]["id"], "20261121T000000Z-node-a-1");
  EXPECT_EQ(row["controls"]["run"], 1);
  EXPECT_TRUE(j["rows"][2]["pinned_d2h_gbps"].is_number());
  EXPECT_EQ(j["runs"].size(), 6u);
}

TEST(FleetOutput, MarkdownAndHtmlShowTheCountsAndTheHtmlLoadsNothingAndEscapesText) {
  const fs::path base = fresh_dir("fleet-html");
  RunContents odd = host_run("node-<script>", "2026-11-20T00:00:00Z", 1);
  odd.inventory.devices[0].name = "GPU <b>&</b> 'x' | y";
  odd.run.devices = odd.inventory.devices;
  const FleetReport report = merge_runs({write_run_folder(base / "d", odd)}, fleet_options());
  const std::string html = fleet_to_html(report);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<b>&"), std::string::npos);
  EXPECT_NE(html.find("node-&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("GPU &lt;b&gt;&amp;&lt;/b&gt; &#39;x&#39;"), std::string::npos);
  for (const char* external : {"src=", "href=", "http:", "https:", "@import"}) {
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  }
  const std::string md = fleet_to_markdown(report);
  EXPECT_NE(md.find("**PASS 1 · FAIL 0 · INCONCLUSIVE 0 · PARTIAL 0 · SKIPPED 0**"), std::string::npos) << md;
  EXPECT_NE(md.find("'x' \\| y"), std::string::npos) << md;  // a pipe would split the table cell
  EXPECT_NE(md.find("Exit status 0"), std::string::npos);
}

TEST(FleetOutput, TheOutputFolderIsCreatedReusedOrRefusedUntouched) {
  const Fleet fleet = write_fleet("fleet-folder");
  const FleetReport report = merge_runs({fleet.runs[1]}, fleet_options());
  EXPECT_EQ(write_fleet_report(report, fleet.base / "new" / "deep").size(), 4u);
  EXPECT_EQ(write_fleet_report(report, fleet.base / "new" / "deep").size(), 4u);  // ours: rewritten
  fs::create_directories(fleet.base / "empty");
  EXPECT_EQ(write_fleet_report(report, fleet.base / "empty").size(), 4u);
  fs::create_directories(fleet.base / "mine");
  std::ofstream(fleet.base / "mine" / "thesis.tex") << "years of work";
  try {
    write_fleet_report(report, fleet.base / "mine");
    ADD_FAILURE() << "a folder of someone else's files was written into";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("thesis.tex"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(fleet.base / "mine"), fs::directory_iterator()), 1);
  std::ofstream(fleet.base / "a-file") << "x";
  EXPECT_THROW(write_fleet_report(report, fleet.base / "a-file"), std::invalid_argument);
}

TEST(FleetOutput, TheMergeCommandPrintsARowPerGpuAndExits2ForBadInput) {
  const Fleet fleet = write_fleet("fleet-command");
  std::ostringstream out, err;
  EXPECT_EQ(merge_command(fleet.runs, fleet_options(fleet.base / "fleet"), out, err), 1) << err.str();
  const std::string printed = out.str();
  for (const char* says :
       {"node-a/0000:00:00.0  Test GPU  PASS  run 20261121T000000Z-node-a-1", "node-a/0000:01:00.0  Test GPU  FAIL",
        "h2d-pinned-mutate/stream-synchronize", "node-b/0000:00:00.0  Other GPU  PARTIAL", "stale",
        "outlier: ", "5 row(s) from 6 run(s): 2 PASS, 2 FAIL, 0 INCONCLUSIVE, 1 PARTIAL, 0 SKIPPED"}) {
    EXPECT_NE(printed.find(says), std::string::npos) << says << "\n" << printed;
  }
  EXPECT_NE(printed.find("wrote " + (fleet.base / "fleet" / "fleet.csv").string()), std::string::npos) << printed;

  std::ostringstream out2, err2;
  const fs::path missing = fleet.base / "no-such-run";
  EXPECT_EQ(merge_command({fleet.runs[0], missing}, fleet_options(fleet.base / "fleet2"), out2, err2), 2);
  EXPECT_NE(err2.str().find(missing.string() + " does not exist"), std::string::npos) << err2.str();
  EXPECT_FALSE(fs::exists(fleet.base / "fleet2"));
  std::ostringstream out3, err3;
  EXPECT_EQ(merge_command(fleet.runs, fleet_options(fleet.base / "node-a-results"), out3, err3), 2);
  EXPECT_NE(err3.str().find("no .hazardlab-fleet marker"), std::string::npos) << err3.str();
}
