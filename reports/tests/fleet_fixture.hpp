#pragma once
// Run folders of a made-up fleet for the fleet self-tests, written with the record library's own
// writers as session-start and the cases write them:
//
//   node-a  A1 11-18 complete, A2 11-21 complete, A3 11-22 06:00 partial; gpu1 fails a guard
//   node-b  B0 11-19 no GPU (the driver was missing), B1 11-22 partial on an "Other GPU"
//   node-c  C1 11-10 complete, so stale; gpu1 copies slowly (an outlier) and misses the link check
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fake_run.hpp"
#include "hazardlab/folder_marker.hpp"
#include "hazardlab/fleet.hpp"
#include "hazardlab/perf_store.hpp"
#include "hazardlab/result_store.hpp"
#include "hazardlab/results_root.hpp"
#include "hazardlab/run_id.hpp"

namespace hazardlab::testing {

// A complete run of `gpus` "Test GPU"s on `host`, started at `started` (ISO 8601), each GPU with
// a UUID of its own host so that GPUs of different hosts are told apart.
inline RunContents host_run(const std::string& host, const std::string& started, int gpus) {
  RunContents c = complete_run(gpus);
  c.run.host = host;
  c.run.started_at = started;
  std::string compact;
  for (char ch : started) {
    if (ch != '-' && ch != ':') compact += ch;
  }
  c.run.id = RunId::make(compact, host, 1).text();
  for (DeviceFingerprint& d : c.inventory.devices) {
    d.uuid = "GPU-" + host + "-" + std::to_string(d.index);
    d.nvidia_smi_index = d.index;
  }
  c.run.devices = c.inventory.devices;
  return c;
}

// Pinned medians at 256 MiB (the key figures) and a 64 MiB point that must not be taken for them.
inline void set_bandwidth(RunContents& c, int device, double h2d, double d2h) {
  const auto point = [](const char* direction, std::size_t bytes, double gbps) {
    return nlohmann::json{{"direction", direction}, {"host_memory", "pinned"}, {"bytes", bytes},
                          {"copies_per_repeat", 2}, {"median_gbps", gbps},     {"min_gbps", gbps},
                          {"max_gbps", gbps}};
  };
  for (PerfRecord& p : c.perf[device]) {
    if (p.part != MeasurementGroup::Bandwidth) continue;
    p.measurements = nlohmann::json{{"bandwidth",
                       {point("h2d", std::size_t{64} << 20, 1.0), point("h2d", std::size_t{256} << 20, h2d),
                        point("d2h", std::size_t{256} << 20, d2h)}},
                      {"link_raw_gbps_per_direction", 63.0}}.get<Measurements>();
  }
}

inline void fail_guard(RunContents& c, int device, const std::string& variant) {
  for (VariantResult& r : c.results) {
    if (r.device_index == device && r.variant_id == variant) r.outcome = Outcome::Incorrect;
  }
}

// Writes `contents` as session-start and the cases would: a run folder under `root`.
inline std::filesystem::path write_run_folder(const std::filesystem::path& root, const RunContents& contents) {
  claim_folder(root, kResultsRootMarker, "results root", {});
  const std::filesystem::path dir = run_folder(root, contents.run.id);
  std::filesystem::create_directories(dir);
  write_marker(dir, kRunMarker, "A run folder written by hazardlab.");
  store_run_record(dir, contents.run);
  store_catalog(dir, contents.catalog);
  store_inventory(dir, contents.inventory);
  for (const VariantResult& r : contents.results) store_result(dir, r);
  for (const auto& [device, records] : contents.perf) {
    for (const PerfRecord& p : records) store_perf(dir, p);
  }
  return dir;
}

struct Fleet {
  std::filesystem::path base;
  std::vector<std::filesystem::path> runs;  // A1 A2 A3 B0 B1 C1
};

inline Fleet write_fleet(const std::string& name) {
  Fleet f{fresh_dir(name), {}};
  const auto add = [&](const std::string& host, const RunContents& c) {
    f.runs.push_back(write_run_folder(f.base / (host + "-results"), c));
  };
  RunContents a1 = host_run("node-a", "2026-11-18T00:00:00Z", 2);
  set_bandwidth(a1, 0, 55.0, 54.0);
  set_bandwidth(a1, 1, 55.1, 54.1);
  fail_guard(a1, 1, "stream-synchronize");
  add("node-a", a1);
  RunContents a2 = host_run("node-a", "2026-11-21T00:00:00Z", 2);
  set_bandwidth(a2, 0, 55.3, 55.2);
  set_bandwidth(a2, 1, 55.1, 54.1);
  fail_guard(a2, 1, "stream-synchronize");
  add("node-a", a2);
  RunContents a3 = host_run("node-a", "2026-11-22T06:00:00Z", 2);  // a lab run of one case
  a3.results = {result("h2d-pinned-mutate", "unsafe-mutate-after-call", 0, Outcome::Reproduced, VariantKind::Control)};
  a3.perf.clear();
  add("node-a", a3);

  RunContents b0 = host_run("node-b", "2026-11-19T00:00:00Z", 0);
  add("node-b", b0);
  RunContents b1 = host_run("node-b", "2026-11-22T00:00:00Z", 1);
  b1.inventory.devices[0].name = "Other GPU";
  b1.run.devices = b1.inventory.devices;
  set_bandwidth(b1, 0, 25.0, 26.0);
  std::erase_if(b1.perf[0], [](const PerfRecord& p) { return p.part == MeasurementGroup::Findings; });
  add("node-b", b1);

  RunContents c1 = host_run("node-c", "2026-11-10T00:00:00Z", 2);
  set_bandwidth(c1, 0, 55.2, 54.9);
  set_bandwidth(c1, 1, 41.0, 54.8);
  for (PerfRecord& p : c1.perf[1]) {
    if (p.part != MeasurementGroup::Bandwidth) continue;
    perf::Check check;
    check.id = "pinned-h2d-link-fraction";
    check.description = "pinned h2d reaches 80% of the link";
    check.measured = "41.0 GB/s, 65% of 63.0 GB/s";
    p.checks.push_back(check);  // applicable, decided, not passed: missed
  }
  add("node-c", c1);
  return f;
}

inline FleetOptions fleet_options(const std::filesystem::path& out = {}) {
  FleetOptions o;
  o.out_dir = out;
  o.now_utc = "2026-11-23T00:00:00Z";
  return o;
}

}  // namespace hazardlab::testing
