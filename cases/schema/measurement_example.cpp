// Prints one performance record of every measurement group, with every optional figure filled in
// (attempts measured again, nvbandwidth beside ours with an error, every GPU at once, an unbound
// thread), as hazardlab-perf writes them. test_measurement_schema.py checks them against the shipped
// JSON Schema: every object closed, every key the schema names written, nothing written it does not name.
#include <iostream>
#include <nlohmann/json.hpp>

#include "hazardlab/perf_store.hpp"

using namespace hazardlab;
using namespace hazardlab::perf;

namespace {

Spread spread(double median) { return {5, median, median - 1, median + 1, median - 0.5, median + 0.5, 0.01}; }

PerfRecord record(MeasurementGroup part, Measurements m) {
  PerfRecord r;
  r.part = part;
  r.profile = "quick";
  r.device_index = 0;
  r.device_uuid = "GPU-00000000-0000-0000-0000-000000000000";
  r.status = PerfStatus::Measured;
  r.measurements = std::move(m);
  r.measurements.host_placement = HostPlacement{0, "0-15", false, "NVML has no CPU affinity for this GPU"};
  r.measurements.isolation = Isolation{true, 12, "/tmp/hazardlab-host.lock"};
  Check c;
  c.id = "pinned-h2d-link-fraction";
  c.description = "pinned copies reach 80% of the link";
  c.rationale = "headers take 10-15%";
  c.measured = "50.00 GB/s";
  c.passed = true;
  c.attempts = {"attempt 1: 40.00 GB/s, missed", "attempt 2: 50.00 GB/s, met"};
  c.untrusted_reason = "not measured alone on the host";
  r.checks = {c};
  r.duration_ms = 1234.5;
  return r;
}

}  // namespace

int main() {
  Measurements bandwidth;
  BandwidthGroup& g = bandwidth.bandwidth.emplace();
  BandwidthPoint b{Direction::HostToDevice, HostMemoryKind::Pinned, 256u << 20, 4, 50, 49, 51, 0.01, 0.5, 5, {}, 0, false};
  b.attempts = {{{40, 41, 39, 40, 40}, spread(40)}, {{50, 51, 49, 50, 50}, spread(50)}};
  b.floor_gbps = 50.4;
  b.confirmed_miss = true;
  g.points = {b};
  g.bidirectional = {{Direction::DeviceToHost, 256u << 20, spread(45)}};
  g.link_raw_gbps_per_direction = 63.015;
  g.checked_sizes = std::vector<std::size_t>{256u << 20};
  g.link_threshold_gbps = 50.4;
  g.reference = ReferenceComparison{"/usr/bin/nvbandwidth", 3, 0.97, {{"h2d", 256u << 20, 50, 52, {52, 51, 53}, {40, 50}}},
                                    {"nvbandwidth -b 256: exit 1"}};
  g.all_gpus_at_once = {{Direction::HostToDevice, 256u << 20, {{0, 40.0}, {1, 41.0}}, 81.0}};
  g.peer_matrix = {{0, 1, true, 256u << 20, 370.5}, {1, 0, false, 256u << 20, 20.25}};

  Measurements overlap;
  const OverlapResult o{HostMemoryKind::Pinned, true, 64u << 20, 5, 5, 5.2, 0.96};
  overlap.overlap = OverlapGroup{{{o}, {o}}};

  Measurements findings;
  findings.findings = std::vector<Comparison>{{"pin-then-copy-64mib", "Is pinning worth it?", "pinned", "pageable", 1, 2}};

  Measurements soak;
  soak.soak = soak::SoakResult{1.5, 0.1, 1, 0, 8u << 20, {{"pinned d2h", 8, 8u << 23, 1}}, {"pinned d2h, round 1: 1 byte"},
                               {{0.5, "pinned d2h", 50.1}}, true};

  nlohmann::json out = nlohmann::json::array();
  for (const PerfRecord& r : {record(MeasurementGroup::Bandwidth, bandwidth), record(MeasurementGroup::Overlap, overlap),
                              record(MeasurementGroup::Findings, findings), record(MeasurementGroup::Soak, soak)})
    out.push_back(r);
  std::cout << out.dump(2) << '\n';
  // Read back: the typed record is what it wrote.
  for (const auto& j : out) {
    if (nlohmann::json(j.get<PerfRecord>()) != j) {
      std::cerr << "measurement_example: a record does not read back as it was written: " << j.dump() << '\n';
      return 1;
    }
  }
  return 0;
}
