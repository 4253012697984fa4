#pragma once
// Validation thresholds: the few performance figures a fleet operator can fail a GPU on. Each has
// a configurable, explained default; a check that cannot apply to a device says why instead.
#include <vector>

#include "cuda/device.hpp"
#include "hazardlab/perf_check.hpp"
#include "perf/perf.hpp"

namespace hazardlab::perf {

// HAZARDLAB_MIN_LINK_FRACTION and HAZARDLAB_MIN_OVERLAP; throws SettingsError.
Thresholds thresholds_from_environment();

// Every checked size, each direction: its confirmed figure must reach the threshold.
std::vector<Check> check_link_bandwidth(const std::vector<BandwidthPoint>& points,
                                        const std::vector<std::size_t>& checked_sizes, const DeviceFingerprint& device,
                                        const Thresholds& t);
std::vector<Check> check_overlap(const std::vector<OverlapResult>& overlap, const DeviceFingerprint& device,
                                 const Thresholds& t);

}  // namespace hazardlab::perf
