#include "conformance/measure/small_upload_threshold.hpp"

namespace hazardlab::conformance {
namespace {

// All `repeats` probes of one size, tallied; the size's answer only when they agree.
std::optional<UploadSeen> probe_size(const ProbeUpload& probe, std::size_t bytes, int repeats,
                                     SmallUploadThreshold& out) {
  UploadProbeTally tally{bytes};
  for (int i = 0; i < repeats; ++i) {
    switch (probe(bytes)) {
      case UploadSeen::SkippedImplicitSync:
        ++tally.skipped;
        break;
      case UploadSeen::Obeyed:
        ++tally.obeyed;
        break;
      case UploadSeen::Neither:
        ++tally.neither;
        break;
    }
  }
  out.probes.push_back(tally);
  if (tally.skipped == repeats) return UploadSeen::SkippedImplicitSync;
  if (tally.obeyed == repeats) return UploadSeen::Obeyed;
  out.problem = "the probes of " + std::to_string(bytes) + " bytes disagree (" + std::to_string(tally.skipped) +
                " skipped, " + std::to_string(tally.obeyed) + " obeyed, " + std::to_string(tally.neither) +
                " neither, of " + std::to_string(repeats) + "): the threshold is not a fixed size here";
  return std::nullopt;
}

}  // namespace

SmallUploadThreshold find_small_upload_threshold(const ProbeUpload& probe, const ThresholdSearch& search) {
  SmallUploadThreshold out;
  const std::optional<UploadSeen> largest = probe_size(probe, search.largest_bytes, search.repeats, out);
  if (!largest) return out;
  if (*largest != UploadSeen::Obeyed) {
    out.problem = "an upload of " + std::to_string(search.largest_bytes) +
                  " bytes still skipped the implicit synchronization: the threshold lies above what is searched";
    return out;
  }
  const std::optional<UploadSeen> one = probe_size(probe, 1, search.repeats, out);
  if (!one) return out;
  if (*one == UploadSeen::Obeyed) {
    out.largest_skipping = 0;  // no upload skips here
    return out;
  }
  // Invariant: `skips` skipped in every probe, `obeys` obeyed in every probe.
  std::size_t skips = 1, obeys = search.largest_bytes;
  while (obeys - skips > 1) {
    const std::size_t middle = skips + (obeys - skips) / 2;
    const std::optional<UploadSeen> seen = probe_size(probe, middle, search.repeats, out);
    if (!seen) return out;
    (*seen == UploadSeen::Obeyed ? obeys : skips) = middle;
  }
  // The two sizes either side of the threshold, again: a measured fact, not a lucky bisection.
  const std::optional<UploadSeen> below = probe_size(probe, skips, search.confirmations, out);
  if (!below) return out;
  const std::optional<UploadSeen> above = probe_size(probe, obeys, search.confirmations, out);
  if (!above) return out;
  if (*below != UploadSeen::SkippedImplicitSync || *above != UploadSeen::Obeyed) {
    out.problem = "confirming " + std::to_string(skips) + " and " + std::to_string(obeys) +
                  " bytes gave the other answer: the threshold is not a fixed size here";
    return out;
  }
  out.largest_skipping = skips;
  return out;
}

std::string describe(const SmallUploadThreshold& threshold) {
  if (!threshold.largest_skipping) return "not measured: " + threshold.problem;
  const std::size_t bytes = *threshold.largest_skipping;
  if (bytes == 0) return "every pinned upload, from 1 byte, obeyed the legacy stream's implicit synchronization";
  return "pinned uploads of up to " + std::to_string(bytes) + " bytes (" + std::to_string(bytes / 1024) + " KiB + " +
         std::to_string(bytes % 1024) + " bytes) skipped the legacy stream's implicit synchronization; " +
         std::to_string(bytes + 1) + " bytes and more obeyed";
}

}  // namespace hazardlab::conformance
