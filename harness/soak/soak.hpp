#pragma once
// The soak: copies of every host memory kind in both directions (and to every other GPU, where there
// are others: with each GPU's soak copying to all the others, every ordered pair is covered), each verified byte for byte against the round's pattern (pattern.hpp), with the pinned
// and registered buffers freed and made again between rounds, and the throughput sampled over time.
// It stops on time. The health profile's integrity part is one round of it on small buffers.
//
// Public reports of what it looks for: peer copies between two RTX 6000 Ada returned corrupted data
// with every call succeeding (NVIDIA/open-gpu-kernel-modules#1257); after heavy pinned allocation
// churn, pinned host-to-device copies silently did nothing (FlashML-org/FreeToken#291).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hazardlab/measurements.hpp"
#include "hazardlab/perf_check.hpp"
#include "settings/settings.hpp"

namespace hazardlab::soak {

struct SoakOptions {
  std::chrono::seconds duration{600};
  std::size_t bytes = std::size_t{64} << 20;  // per copy
  bool one_round = false;                     // the health profile's integrity check: every copy once
  SoakFault fault = SoakFault::None;          // HAZARDLAB_SOAK_INJECT_FAULT: flip one byte of one copy
  int device = 0;
  std::vector<int> peer_devices;  // the other GPUs, a copy to each per round; none on a one-GPU host
  std::uint64_t seed = 0;
};

SoakResult run_soak(const SoakOptions& options);  // throws CudaError

// The soak (or the health profile's integrity part, one round on small buffers) as hazardlab-perf runs
// it: `options` with the device and the peers filled in (every other GPU), printed as
// it goes, its check decided, its typed record returned.
Measurements measure_soak_part(SoakOptions options, int device_index, std::vector<perf::Check>& checks);

// "copies-verified-byte-for-byte": passed only when copies were made and none was corrupted.
perf::Check soak_check(const SoakResult& r);

}  // namespace hazardlab::soak
