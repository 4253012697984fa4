// The search for the small-upload threshold (measure/small_upload_threshold.hpp) against made-up GPUs:
// it finds any threshold to the byte, says when there is none, and refuses to call a flaky or
// unbracketed answer a measurement.
#include <gtest/gtest.h>

#include "conformance/measure/small_upload_threshold.hpp"

using namespace hazardlab::conformance;

namespace {

// A GPU whose uploads of up to `largest_skipping` bytes skip the implicit synchronization.
ProbeUpload gpu_with_threshold(std::size_t largest_skipping, int* probes = nullptr) {
  return [=](std::size_t bytes) {
    if (probes) ++*probes;
    return bytes <= largest_skipping ? UploadSeen::SkippedImplicitSync : UploadSeen::Obeyed;
  };
}

}  // namespace

TEST(SmallUploadThreshold, BisectionFindsTheThresholdToTheByte) {
  for (const std::size_t threshold : {std::size_t{24 * 1024}, std::size_t{24 * 1024 + 1}, std::size_t{25000},
                                      std::size_t{28 * 1024 - 1}, std::size_t{1}, std::size_t{(4u << 20) - 1}}) {
    int probes = 0;
    const SmallUploadThreshold found = find_small_upload_threshold(gpu_with_threshold(threshold, &probes));
    ASSERT_TRUE(found.largest_skipping.has_value()) << threshold << ": " << found.problem;
    EXPECT_EQ(*found.largest_skipping, threshold);
    // About log2(4 MiB) = 22 sizes of 3 probes, and 5 more of each size either side.
    EXPECT_LE(probes, 3 * 24 + 10) << threshold;
    EXPECT_EQ(found.probes.back().bytes, threshold + 1);
    EXPECT_EQ(found.probes.back().obeyed, 5);
  }
  EXPECT_NE(describe(find_small_upload_threshold(gpu_with_threshold(25000))).find("up to 25000 bytes (24 KiB + 424 "
                                                                                  "bytes) skipped"),
            std::string::npos);
}

TEST(SmallUploadThreshold, AGpuThatAlwaysObeysHasThresholdZero) {
  const SmallUploadThreshold found = find_small_upload_threshold(gpu_with_threshold(0));
  ASSERT_TRUE(found.largest_skipping.has_value());
  EXPECT_EQ(*found.largest_skipping, 0U);
  EXPECT_NE(describe(found).find("every pinned upload, from 1 byte, obeyed"), std::string::npos);
}

TEST(SmallUploadThreshold, AnAnswerThatIsNotAFixedSizeIsNotAMeasurement) {
  // Above the searched range: nothing is bracketed.
  SmallUploadThreshold found = find_small_upload_threshold(gpu_with_threshold(std::size_t{8} << 20));
  EXPECT_FALSE(found.largest_skipping.has_value());
  EXPECT_NE(found.problem.find("above what is searched"), std::string::npos) << found.problem;
  // Probes that disagree near the threshold (a timing race, not a size): the size and its tally are named.
  int calls = 0;
  found = find_small_upload_threshold([&](std::size_t bytes) {
    ++calls;
    if (bytes > 20000 && bytes <= 30000) return calls % 2 ? UploadSeen::SkippedImplicitSync : UploadSeen::Obeyed;
    return bytes <= 25000 ? UploadSeen::SkippedImplicitSync : UploadSeen::Obeyed;
  });
  EXPECT_FALSE(found.largest_skipping.has_value());
  EXPECT_NE(found.problem.find("disagree"), std::string::npos) << found.problem;
  EXPECT_NE(describe(found).find("not measured: the probes of "), std::string::npos) << describe(found);
  // A probe with no answer at all.
  found = find_small_upload_threshold([](std::size_t) { return UploadSeen::Neither; });
  EXPECT_FALSE(found.largest_skipping.has_value());
  EXPECT_NE(found.problem.find("3 neither"), std::string::npos) << found.problem;
}
