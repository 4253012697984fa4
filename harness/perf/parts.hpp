#pragma once
// The measurement groups of one GPU as hazardlab-perf runs them: each measures, prints what it found
// and where the time went, decides its validation checks, and returns its typed record
// (hazardlab/measurements.hpp). The program only chooses the group and stores the record.
#include <chrono>
#include <string_view>
#include <vector>

#include "cuda/device.hpp"
#include "hazardlab/measurements.hpp"
#include "hazardlab/perf_check.hpp"
#include "perf/perf.hpp"

namespace hazardlab::perf {

struct Stopwatch {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
};

// The host memory kinds the bandwidth group measures on this device.
std::vector<HostMemoryKind> bandwidth_kinds(const DeviceFingerprint& device);

// nvbandwidth first when it is there, then every kind and size, the bidirectional figures and the link check.
Measurements measure_bandwidth_part(const Profile& profile, const DeviceFingerprint& device,
                                    const Thresholds& thresholds, std::vector<Check>& checks,
                                    PreparedBuffers& buffers);
// The GPUs whose several-GPU figures `device` measures: every GPU of the host when it is the lowest-numbered of
// several (outside the health profile), else none.
std::vector<DeviceFingerprint> several_gpus_measured_by(const Profile& profile, const DeviceFingerprint& device);
// Every GPU at once in each direction, and the peer matrix: with every GPU's timing group held alone.
void measure_several_gpus(const Profile& profile, const std::vector<DeviceFingerprint>& devices, BandwidthGroup& out);
// Confirmed before failing, like the bandwidth: a miss is measured again, every attempt kept.
Measurements measure_overlap_part(const Profile& profile, const DeviceFingerprint& device,
                                  const Thresholds& thresholds, std::vector<Check>& checks);
Measurements measure_findings_part(const Profile& profile);

}  // namespace hazardlab::perf
