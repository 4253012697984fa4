#pragma once
// A small made-up run for the record and report self-tests: two hazards, four variants, GPUs
// with a Gen5 x16 link. No CUDA and no hazard registry: the record layer stands on its own.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hazardlab/report.hpp"
#include "hazardlab/results_layout.hpp"

namespace hazardlab::testing {

// A scratch folder of this process's own, removed when the process ends (under ctest each test runs in a
// process of its own), so that the tests leave nothing behind in the temporary folder.
inline std::filesystem::path fresh_dir(const std::string& name) {
  static std::vector<std::filesystem::path> made;
  static const pid_t owner = ::getpid();  // a forked child that calls exit() leaves its parent's folders
  static const bool removed_at_exit = std::atexit([] {
    if (::getpid() != owner) return;
    for (const std::filesystem::path& dir : made) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  }) == 0;
  (void)removed_at_exit;
  const auto dir =
      std::filesystem::temp_directory_path() / ("hazardlab-selftest-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  made.push_back(dir);
  return dir;
}

inline std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline Catalog fake_catalog() {
  Catalog c;
  c.hazards.push_back({"h2d-pinned-mutate",
                       "The host rewrites a pinned source before the copy ran",
                       {{"CUDA Runtime API", "API synchronization behavior", "async copies return early"}},
                       {},
                       "An explanation.",
                       {{"unsafe-mutate-after-call", VariantKind::Control, "rewrite at once"},
                        {"stream-synchronize", VariantKind::Guard, "synchronize first"},
                        {"event-query", VariantKind::Guard, "poll an event"}}});
  c.hazards.push_back({"host-function-ordering",
                       "A host function after a copy reads complete data",
                       {{"CUDA Runtime API", "cudaLaunchHostFunc", "runs after prior work"}},
                       {"canMapHostMemory = 1"},
                       "Another explanation.",
                       {{"host-function-after-d2h", VariantKind::Rule, "read in a host function"}}});
  return c;
}

inline DeviceFingerprint fake_device(int index) {
  DeviceFingerprint d;
  d.index = index;
  d.name = "Test GPU";
  d.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(index);
  d.pci_bus_id = "0000:0" + std::to_string(index) + ":00.0";
  d.compute_capability_major = 9;
  d.driver_release = "580.00";
  d.pcie.available = true;
  d.pcie.max_generation = 5;
  d.pcie.max_width = 16;
  return d;
}

inline VariantResult result(const std::string& hazard, const std::string& variant, int device, Outcome o,
                            VariantKind kind = VariantKind::Guard) {
  VariantResult r;
  r.hazard_id = hazard;
  r.variant_id = variant;
  r.kind = kind;
  r.device_index = device;
  r.outcome = o;
  r.trials = 100;
  r.reproduced = o == Outcome::Reproduced ? 100 : 0;
  r.seed = 7;
  return r;
}

inline PerfRecord measured(MeasurementGroup part, int device) {
  PerfRecord p;
  p.part = part;
  p.profile = "quick";
  p.device_index = device;
  p.status = PerfStatus::Measured;
  return p;
}

// Every case of the catalogue for `devices` (or "no GPU"), each passing, the run record to match.
inline RunContents complete_run(int devices) {
  RunContents c;
  c.catalog = fake_catalog();
  c.run.id = "20261122T000000Z-testhost-1";
  c.run.host = "testhost";
  c.run.started_at = "2026-11-22T00:00:00Z";
  c.run.hazardlab_version = "test";
  c.run.settings = {{"HAZARDLAB_TRIALS", "100", false}};
  std::vector<int> indexes;
  for (int i = 0; i < devices; ++i) {
    c.inventory.devices.push_back(fake_device(i));
    indexes.push_back(i);
  }
  if (devices == 0) {
    c.inventory.no_device_reason = "no NVIDIA driver";
    indexes.push_back(-1);
  }
  c.run.devices = c.inventory.devices;
  for (int d : indexes) {
    for (const CatalogHazard& h : c.catalog.hazards) {
      for (const CatalogVariant& v : h.variants) {
        c.run.registered.push_back(case_name(d, h.id, v.id));
        Outcome o = v.kind == VariantKind::Control ? Outcome::Reproduced : Outcome::Passed;
        if (d < 0) o = Outcome::Skipped;
        c.results.push_back(result(h.id, v.id, d, o, v.kind));
      }
    }
    for (const MeasurementGroup part : kPerfParts) {
      c.run.registered.push_back(measurement_name(d, to_string(part)));
      PerfRecord p = measured(part, d);
      if (d < 0) p.status = PerfStatus::Skipped;
      c.perf[d].push_back(p);
    }
  }
  return c;
}

}  // namespace hazardlab::testing
