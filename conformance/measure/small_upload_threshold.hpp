// The size below which a pinned host-to-device cudaMemcpyAsync ignores the legacy stream's implicit
// synchronization (Deviation::kSmallPinnedUploadSkipsImplicitSync), found to the byte by bisection. The
// probe of one size is the GPU's (runner/upload_probe.hpp); the search is plain C++, tested on the CPU
// with made-up GPUs. What it finds becomes the model's figure: RuleSet::with_small_upload_bytes.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hazardlab::conformance {

// What one gated probe of one upload size saw.
enum class UploadSeen {
  SkippedImplicitSync,  // the device got the source's earlier bytes: the copy did not wait for the gated write
  Obeyed,               // the device got the gated write's bytes, from a copy that waited for it
  Neither,              // anything else (mixed bytes, a call that blocked): no answer
};
using ProbeUpload = std::function<UploadSeen(std::size_t bytes)>;

struct UploadProbeTally {
  std::size_t bytes = 0;
  int skipped = 0, obeyed = 0, neither = 0;
};

struct SmallUploadThreshold {
  // The largest upload that skipped in every probe; one byte more obeyed in every probe. 0: even one byte
  // obeyed. Empty when the search could not decide: `problem` says why.
  std::optional<std::size_t> largest_skipping;
  std::string problem;
  std::vector<UploadProbeTally> probes;  // in the order probed
};

struct ThresholdSearch {
  int repeats = 3;                          // probes per size; a size counts only when all agree
  int confirmations = 5;                    // more probes of the two sizes either side of the threshold
  std::size_t largest_bytes = 4u << 20;     // an upload this large must obey
};

SmallUploadThreshold find_small_upload_threshold(const ProbeUpload& probe, const ThresholdSearch& search = {});

// "25 600 bytes (25 KiB): uploads up to it skipped, 25 601 obeyed", or the problem.
std::string describe(const SmallUploadThreshold& threshold);

}  // namespace hazardlab::conformance
