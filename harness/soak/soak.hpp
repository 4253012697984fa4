#pragma once
// The soak: copies of every host memory kind in both directions (and to the next GPU, where there
// is one), each verified byte for byte against the round's pattern (pattern.hpp), with the pinned
// and registered buffers freed and made again between rounds, and the throughput sampled over time.
// It stops on time. The health profile's integrity part is one round of it on small buffers.
//
// Public reports of what it looks for: peer copies between two RTX 6000 Ada returned corrupted data
// with every call succeeding (NVIDIA/open-gpu-kernel-modules#1257); after heavy pinned allocation
// churn, pinned host-to-device copies silently did nothing (FlashML-org/FreeToken#291).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hazardlab/perf_check.hpp"

namespace hazardlab::soak {

struct SoakOptions {
  std::chrono::seconds duration{600};
  std::size_t bytes = std::size_t{64} << 20;  // per copy
  bool one_round = false;                     // the health profile's integrity check: every copy once
  bool inject_fault = false;                  // HAZARDLAB_SOAK_INJECT_FAULT: flip one byte of one copy
  int device = 0;
  int peer_device = -1;  // the next GPU, for peer copies; -1: none
  std::uint64_t seed = 0;
};

struct CopyTally {
  std::string copy;  // "pinned h2d", "registered d2h", "peer gpu0->gpu1"
  std::uint64_t copies = 0;
  std::uint64_t bytes_verified = 0;  // bytes that arrived whole
  std::uint64_t corrupted = 0;       // copies with at least one wrong byte
};

struct SoakSample {
  double t_s = 0;  // since the soak began: the middle of the bucket
  std::string copy;
  double gbps = 0;  // bytes over the copies' event-timed duration in the bucket
};

struct SoakResult {
  double seconds = 0;
  double overshoot_s = 0;  // past the duration when the last copy ended
  int rounds = 0;
  int churns = 0;  // times the pinned and registered buffers were freed and made again
  std::size_t bytes = 0;
  std::vector<CopyTally> tallies;
  std::vector<std::string> errors;  // each corrupted copy: first bad offset, bytes, what it looks like
  std::vector<SoakSample> samples;
  bool fault_injected = false;
};

SoakResult run_soak(const SoakOptions& options);  // throws CudaError

void to_json(nlohmann::json& j, const SoakResult& r);

// "copies-verified-byte-for-byte": passed only when copies were made and none was corrupted.
perf::Check soak_check(const SoakResult& r);

}  // namespace hazardlab::soak
