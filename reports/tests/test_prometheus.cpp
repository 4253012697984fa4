// The metrics file for node_exporter's textfile collector, read back by real parsers of the
// exposition format: the Python client's (python3-prometheus-client) and promtool's lint
// (`promtool check metrics`, Debian: prometheus). Either missing fails: CI installs both.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include <algorithm>
#include <map>
#include <sstream>

#include "fleet_fixture.hpp"
#include "hazardlab/prometheus.hpp"
#include "hazardlab/publish.hpp"

namespace fs = std::filesystem;
using namespace hazardlab;
using namespace hazardlab::testing;

namespace {

struct Ran {
  int status = -1;
  std::string output;
};

Ran shell(const std::string& command) {
  Ran r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) r.output += buffer;
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// The system's python3 has the Debian package even where a version manager's comes first on PATH.
std::string python_with_client() {
  for (const char* candidate : {"/usr/bin/python3", "python3"}) {
    if (shell(std::string(candidate) + " -c 'import prometheus_client.parser'").status == 0) return candidate;
  }
  return "";
}

const fs::path kParser = fs::path(HAZARDLAB_SOURCE_DIR) / "reports/tests/parse_prometheus.py";

PerfRecord bandwidth(int device, double h2d_256, double link) {
  PerfRecord p = measured(MeasurementGroup::Bandwidth, device);
  nlohmann::json points = nlohmann::json::array();
  for (std::size_t mib : {64, 256, 1024, 4}) {
    for (const char* d : {"h2d", "d2h"}) {
      const double gbps = std::string(d) == "h2d" && mib == 256 ? h2d_256 : 55.0;
      points.push_back({{"direction", d}, {"host_memory", "pinned"}, {"bytes", mib << 20}, {"median_gbps", gbps}});
    }
  }
  points.push_back({{"direction", "h2d"}, {"host_memory", "pageable"}, {"bytes", 256u << 20}, {"median_gbps", 9.0}});
  p.measurements = nlohmann::json{{"bandwidth", points},
                    {"link_raw_gbps_per_direction", link},
                    {"checked_sizes", {64u << 20, 256u << 20, 1u << 30}},
                    {"link_threshold_gbps", link * 0.8}}.get<Measurements>();
  perf::Check c;
  c.id = "pinned-h2d-link-fraction";
  c.description = "pinned host-to-device copies reach 80%";
  c.passed = h2d_256 >= link * 0.8;
  c.measured = "figures";
  p.checks.push_back(c);
  return p;
}

// Two GPUs: gpu1's 256 MiB host-to-device figure misses the threshold.
std::vector<GpuReport> two_gpu_reports(RunRecord& run) {
  RunContents c = complete_run(2);
  c.run.ended_at = "2026-11-22T00:00:31Z";
  c.inventory.devices[1].name = "Test \"GPU\" \\ 2";  // label values that need escaping
  c.inventory.devices[1].nvidia_smi_index = 1;
  for (int d : {0, 1}) {
    auto& perf = c.perf[d];
    perf.erase(perf.begin());
    perf.insert(perf.begin(), bandwidth(d, d == 1 ? 31.2 : 55.3, 63.015));
  }
  std::vector<GpuReport> reports = build_reports(c, false);
  run = c.run;
  run.complete = true;
  return reports;
}

std::string parsed(const std::string& text, const fs::path& dir) {
  const std::string python = python_with_client();
  EXPECT_FALSE(python.empty()) << "no python3 with prometheus_client: install python3-prometheus-client";
  write_prometheus(dir, text);
  const Ran r = shell(python + " " + kParser.string() + " " + (dir / kPrometheusFile).string());
  EXPECT_EQ(r.status, 0) << r.output << "\n--- the file:\n" << text;
  return r.output;
}

bool has_line(const std::string& output, const std::string& line) {
  return output.find(line + "\n") != std::string::npos;
}

}  // namespace

// A sample as the parser script prints it: labels sorted by name.
std::string sample(const std::string& name, std::map<std::string, std::string> labels, const std::string& value) {
  std::string text = name + ' ';
  for (const auto& [k, v] : labels) text += (text.back() == ' ' ? "" : ",") + k + '=' + v;
  return text + ' ' + value;
}

std::map<std::string, std::string> gpu0(std::map<std::string, std::string> more) {
  more.insert({{"Hostname", "testhost"},
               {"UUID", "GPU-00000000-0000-0000-0000-000000000000"},
               {"gpu", "0"},
               {"modelName", "Test GPU"},
               {"pci_bus_id", "00000000:00:00.0"}});
  return more;
}

TEST(Prometheus, TheVerdictCountsFiguresAndThresholdsParseWithDcgmExportersLabels) {
  const fs::path dir = fresh_dir("prometheus");
  RunRecord run;
  const std::string text = reports_to_prometheus(two_gpu_reports(run), run);
  const std::string out = parsed(text, dir);
  EXPECT_TRUE(has_line(out, sample("hazardlab_gpu_verdict", gpu0({{"profile", "validation"}, {"verdict", "PASS"}}), "1")))
      << out;
  EXPECT_TRUE(has_line(out, sample("hazardlab_gpu_verdict", gpu0({{"profile", "validation"}, {"verdict", "FAIL"}}), "0")))
      << out;
  EXPECT_TRUE(has_line(out, sample("hazardlab_gpu_cases", gpu0({{"outcome", "passed"}}), "3"))) << out;
  EXPECT_TRUE(has_line(out, sample("hazardlab_gpu_cases", gpu0({{"outcome", "reproduced"}}), "1"))) << out;
  EXPECT_TRUE(has_line(out, sample("hazardlab_gpu_cases", gpu0({{"outcome", "not-run"}}), "0"))) << out;
  const std::map<std::string, std::string> figure = {
      {"bytes", "268435456"}, {"direction", "h2d"}, {"host_memory", "pinned"}};
  EXPECT_TRUE(has_line(out, sample("hazardlab_bandwidth_bytes_per_second", gpu0(figure), "55300000000"))) << out;
  EXPECT_TRUE(has_line(out, sample("hazardlab_bandwidth_threshold_bytes_per_second", gpu0(figure), "50412000000")))
      << out;
  // The escaped model name comes back whole; the missed check fails gpu1's verdict.
  EXPECT_NE(out.find("modelName=Test \"GPU\" \\ 2,pci_bus_id=00000000:01:00.0,profile=validation,verdict=FAIL 1"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("hazardlab_check_passed Hostname=testhost,UUID=GPU-00000000-0000-0000-0000-000000000001,check="
                     "pinned-h2d-link-fraction"),
            std::string::npos);
  // Only the checked sizes of pinned memory: not 4 MiB, not pageable.
  EXPECT_EQ(out.find("bytes=4194304"), std::string::npos) << out;
  EXPECT_EQ(out.find("host_memory=pageable"), std::string::npos) << out;
  EXPECT_TRUE(has_line(out, "hazardlab_run_start_timestamp_seconds Hostname=testhost,profile=validation 1795305600"))
      << out;
  EXPECT_TRUE(has_line(out, "hazardlab_run_duration_seconds Hostname=testhost,profile=validation 31")) << out;
  EXPECT_TRUE(has_line(out, "hazardlab_run_complete Hostname=testhost,profile=validation 1")) << out;
}

TEST(Prometheus, PromtoolFindsNothingToLint) {
  const fs::path dir = fresh_dir("prometheus-lint");
  RunRecord run;
  write_prometheus(dir, reports_to_prometheus(two_gpu_reports(run), run));
  const Ran r = shell("promtool check metrics < " + (dir / kPrometheusFile).string());
  // 127: no promtool. CI installs it (Debian: prometheus); without it this test cannot vouch for the file.
  ASSERT_NE(r.status, 127) << "promtool is not installed (Debian: prometheus): " << r.output;
  ASSERT_FALSE(r.output.find("error while linting") != std::string::npos) << r.output;
  // dcgm-exporter's own label names (UUID, modelName, Hostname) are not snake_case, and the lint says
  // so for every family; it is the one complaint allowed, since joining DCGM's series needs those names.
  std::istringstream lines(r.output);
  int complaints = 0;
  for (std::string line; std::getline(lines, line);) {
    ++complaints;
    EXPECT_NE(line.find("label names should be written in 'snake_case' not 'camelCase'"), std::string::npos)
        << "promtool: " << line;
  }
  EXPECT_GT(complaints, 0) << "promtool ran without reading the file?";
}

TEST(Prometheus, ARunWithoutAGpuSaysSoWithTheHostsLabelOnly) {
  const fs::path dir = fresh_dir("prometheus-nogpu");
  RunContents c = complete_run(0);
  const std::vector<GpuReport> reports = build_reports(c, false);
  const std::string out = parsed(reports_to_prometheus(reports, c.run), dir);
  EXPECT_TRUE(has_line(out, "hazardlab_gpu_verdict Hostname=testhost,profile=validation,verdict=SKIPPED 1")) << out;
  EXPECT_EQ(out.find("UUID="), std::string::npos) << out;
  // No end time yet: no duration rather than a made-up one.
  EXPECT_EQ(out.find("hazardlab_run_duration_seconds"), std::string::npos) << out;
}

TEST(Prometheus, TheReportWritesTheFileWholeAndRefusesAFolderThatIsNotOne) {
  const fs::path base = fresh_dir("prometheus-report");
  RunContents c = complete_run(1);
  const fs::path run_dir = write_run_folder(base / "results", c);
  std::ostringstream out, err;
  const fs::path textfile = base / "textfile";
  fs::create_directories(textfile);
  std::ofstream(textfile / "other.prom") << "# someone else's\n";
  EXPECT_EQ(report_run(run_dir, ReportOptions{base / "reports", false, 20, {}, textfile}, out, err), 0) << err.str();
  EXPECT_NE(read(textfile / kPrometheusFile).find("verdict=\"PASS\",profile=\"validation\"} 1"), std::string::npos);
  // Only hazardlab.prom and what was there: no temporary file left behind.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(textfile)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"hazardlab.prom", "other.prom"}));
  std::ostringstream out2, err2;
  EXPECT_EQ(report_run(run_dir, ReportOptions{base / "reports", false, 20, {}, base / "no-such-folder"}, out2, err2), 2);
  EXPECT_NE(err2.str().find("no-such-folder' is not a folder"), std::string::npos) << err2.str();
}

// The metrics file is never written into a folder hazardlab keeps (the run folder, a report folder or set, the
// results root, or one inside them): its hazardlab.prom would make later runs and reports refuse that folder.
TEST(Prometheus, AFolderHazardlabKeepsIsRefusedForTheMetricsFile) {
  const fs::path base = fresh_dir("prometheus-own-folders");
  const fs::path run_dir = write_run_folder(base / "results", complete_run(1));
  std::ostringstream out, err;
  ASSERT_EQ(report_run(run_dir, ReportOptions{base / "reports", false, 20}, out, err), 0) << err.str();
  fs::create_directories(base / "reports" / "metrics");
  for (const fs::path& folder : {run_dir, base / "reports", base / "reports" / "metrics", base / "results",
                                 base / "results" / "runs", base / "reports" / "runs" / complete_run(1).run.id}) {
    std::ostringstream o, e;
    EXPECT_EQ(report_run(run_dir, ReportOptions{base / "reports", false, 20, {}, folder}, o, e), 2) << folder;
    EXPECT_NE(e.str().find("which holds only hazardlab's own files"), std::string::npos) << e.str();
    EXPECT_FALSE(fs::exists(folder / kPrometheusFile)) << folder;
  }
}

// node_exporter's folder is shared: a hazardlab.prom that hazardlab did not write is left as it is, and a run
// writes over only its own.
TEST(Prometheus, AMetricsFileHazardlabDidNotWriteIsNeverOverwritten) {
  const fs::path base = fresh_dir("prometheus-foreign");
  const fs::path run_dir = write_run_folder(base / "results", complete_run(1));
  const fs::path textfile = base / "textfile";
  fs::create_directories(textfile);
  const std::string mine = "# HELP my_metric something of mine\n# TYPE my_metric gauge\nmy_metric 1\n";
  std::ofstream(textfile / kPrometheusFile) << mine;
  std::ostringstream out, err;
  EXPECT_EQ(report_run(run_dir, ReportOptions{base / "reports", false, 20, {}, textfile}, out, err), 2) << err.str();
  EXPECT_NE(err.str().find("was not written by hazardlab"), std::string::npos) << err.str();
  EXPECT_EQ(read(textfile / kPrometheusFile), mine);
  // Its own, from an earlier run, is replaced.
  fs::remove(textfile / kPrometheusFile);
  std::ostringstream out2, err2;
  ASSERT_EQ(report_run(run_dir, ReportOptions{base / "reports", false, 20, {}, textfile}, out2, err2), 0) << err2.str();
  std::ostringstream out3, err3;
  EXPECT_EQ(report_run(run_dir, ReportOptions{base / "reports2", false, 20, {}, textfile}, out3, err3), 0) << err3.str();
}

// A file of only hazardlab_ lines is not therefore hazardlab's: a user's own (written by hand, a copy of one
// hazardlab wrote, or hazardlab's with a line added) is left as it is, and only the file hazardlab wrote there,
// unchanged, is replaced.
TEST(Prometheus, AMetricsFileOfOnlyHazardlabLinesIsOursOnlyWhenHazardlabWroteItThere) {
  const fs::path base = fresh_dir("prometheus-lookalike");
  const fs::path run_dir = write_run_folder(base / "results", complete_run(1));
  const fs::path textfile = base / "textfile";
  fs::create_directories(textfile);
  const auto report = [&](const std::string& reports) {
    std::ostringstream out, err;
    const int status = report_run(run_dir, ReportOptions{base / reports, false, 20, {}, textfile}, out, err);
    return std::pair{status, err.str()};
  };
  const std::string mine = "# HELP hazardlab_mine kept by hand\n# TYPE hazardlab_mine gauge\nhazardlab_mine 1\n";
  std::ofstream(textfile / kPrometheusFile) << mine;
  auto [status, err] = report("reports-1");
  EXPECT_EQ(status, 2) << err;
  EXPECT_NE(err.find("was not written by hazardlab"), std::string::npos) << err;
  EXPECT_EQ(read(textfile / kPrometheusFile), mine);

  fs::remove(textfile / kPrometheusFile);
  ASSERT_EQ(report("reports-2").first, 0);
  const std::string ours = read(textfile / kPrometheusFile);
  // A copy of it (cp, a backup restored) is the user's file: made while the original still holds its inode, and
  // renamed over it.
  fs::copy_file(textfile / kPrometheusFile, textfile / "copy.prom.tmp");
  fs::rename(textfile / "copy.prom.tmp", textfile / kPrometheusFile);
  EXPECT_EQ(report("reports-3").first, 2);
  EXPECT_EQ(read(textfile / kPrometheusFile), ours);
  // Its own, with a line added in place, is the user's too.
  fs::remove(textfile / kPrometheusFile);
  ASSERT_EQ(report("reports-4").first, 0);
  std::ofstream(textfile / kPrometheusFile, std::ios::app) << "hazardlab_mine 2\n";
  const std::string added = read(textfile / kPrometheusFile);
  EXPECT_EQ(report("reports-5").first, 2);
  EXPECT_EQ(read(textfile / kPrometheusFile), added);
}
