// What a kernel touches, read from the PTX nvcc makes of ptx_reading_cases.cu (for compute_75 and compute_90) and
// bounded for a launch: the exact bytes of the shapes real programs have, a guard or a loop's exit test bounding
// them, and the cases the reading must give up on (a pointer read from memory, an index that could wrap, a loop
// with no bound) giving no footprint rather than a wrong one.
#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/ptx/footprint_at_launch.hpp"
#include "checker/ptx/kernel_reading.hpp"
#include "checker/ptx/ptx_text.hpp"

namespace hazardlab::check::ptx {
namespace {

constexpr std::uintptr_t kA = 0x7f0000000000, kB = 0x7f0000100000;

class PtxFootprint : public testing::TestWithParam<int> {
 protected:
  KernelFootprint read(const char* name) {
    std::ifstream in(std::string(HAZARDLAB_PTX_CASES) + std::to_string(GetParam()) + ".ptx");
    std::stringstream text;
    text << in.rdbuf();
    const std::optional<PtxFunction> f = read_entry(text.str(), name);
    EXPECT_TRUE(f) << name;
    return f ? read_kernel(*f) : KernelFootprint{};
  }
  // Each argument's bytes, as the driver's kernelParams point at them.
  template <typename... T>
  std::optional<std::vector<DeviceRange>> launch(const KernelFootprint& f, LaunchShape shape, T... values) {
    std::vector<std::vector<std::byte>> words;
    (words.emplace_back(reinterpret_cast<const std::byte*>(&values), reinterpret_cast<const std::byte*>(&values) + sizeof values), ...);
    std::vector<std::span<const std::byte>> arguments(words.begin(), words.end());
    return footprint_at_launch(f, arguments, shape);
  }
};

std::string text(const std::optional<std::vector<DeviceRange>>& ranges) {
  if (!ranges) return "none";
  std::string out;
  for (const DeviceRange& r : *ranges)
    out += (r.kind == DeviceAccessKind::Write ? "W " : "R ") + std::to_string(r.begin - (r.begin >= kB ? kB : kA)) +
           ".." + std::to_string(r.end - (r.begin >= kB ? kB : kA)) + (r.begin >= kB ? " of B; " : " of A; ");
  return out;
}

LaunchShape shape(std::uint32_t blocks, std::uint32_t threads) { return {{blocks, 1, 1}, {threads, 1, 1}}; }

// NVIDIA's overlap sample: each stream's kernel is handed the base pointer and its chunk's offset. Its footprint is
// its chunk, not the first element (which put every stream's kernel on chunk 0).
TEST_P(PtxFootprint, TheOverlapSamplesKernelTouchesItsChunk) {
  const KernelFootprint f = read("overlap");
  ASSERT_TRUE(f.complete) << f.why_not;
  EXPECT_EQ(text(launch(f, shape(4, 256), kA, 2048)), "R 8192..12288 of A; W 8192..12288 of A; ");
  EXPECT_EQ(text(launch(f, shape(4, 256), kA, 0)), "R 0..4096 of A; W 0..4096 of A; ");
}

// The guard keeps the threads past n out: 1024 threads, 1000 elements.
TEST_P(PtxFootprint, AGuardBoundsTheThreadsPastTheEnd) {
  const KernelFootprint f = read("guarded_axpy");
  ASSERT_TRUE(f.complete) << f.why_not;
  EXPECT_EQ(text(launch(f, shape(4, 256), kA, kB, 2.0f, 1000)), "R 0..4000 of A; R 0..4000 of B; W 0..4000 of B; ");
  EXPECT_EQ(text(launch(f, shape(4, 256), kA, kB, 2.0f, 0)), "");  // no thread passes the guard
}

// A grid-stride loop: the index is its start plus the iteration count times the grid's size, bounded by the exit test.
TEST_P(PtxFootprint, AGridStrideLoopIsBoundedByItsExitTest) {
  const KernelFootprint f = read("grid_stride");
  ASSERT_TRUE(f.complete) << f.why_not;
  EXPECT_EQ(text(launch(f, shape(2, 128), kA, kB, std::size_t{10000})), "R 0..40000 of B; W 0..40000 of A; ");
}

// A struct by value holding pointers: each word is its own pointer, one written, one read.
TEST_P(PtxFootprint, AStructOfPointersIsReadWordByWord) {
  const KernelFootprint f = read("through_struct");
  ASSERT_TRUE(f.complete) << f.why_not;
  struct {
    std::uintptr_t written, read;
  } pair{kA, kB};
  EXPECT_EQ(text(launch(f, shape(1, 64), pair, 10)), "R 0..40 of B; W 0..40 of A; ");
}

// A block reduction: the strided loop reads the input up to n, the atomic writes one float.
TEST_P(PtxFootprint, ABlockSumReadsItsInputAndAddsToItsOutput) {
  const KernelFootprint f = read("block_sum");
  ASSERT_TRUE(f.complete) << f.why_not;
  EXPECT_EQ(text(launch(f, shape(1, 256), kA, kB, 5000)), "R 0..20000 of A; W 0..4 of B; ");
}

// What the reading cannot follow gives no footprint: a pointer read from memory, a loop that ends on data.
TEST_P(PtxFootprint, APointerReadFromMemoryIsNotFollowed) {
  const KernelFootprint f = read("pointer_from_memory");
  EXPECT_FALSE(f.complete);
  EXPECT_NE(f.why_not.find("cannot trace"), std::string::npos) << f.why_not;
  EXPECT_EQ(text(launch(f, shape(1, 64), kA, 10)), "none");
}

TEST_P(PtxFootprint, ALoopThatEndsOnDataHasNoBound) {
  const KernelFootprint f = read("until_zero");
  EXPECT_EQ(text(launch(f, shape(1, 32), kA)), "none");
}

// An index that would wrap its 32 bits with these arguments: the polynomial would not be what the kernel computes.
TEST_P(PtxFootprint, AnIndexThatCouldWrapGivesNoFootprint) {
  const KernelFootprint f = read("overlap");
  ASSERT_TRUE(f.complete) << f.why_not;
  EXPECT_EQ(text(launch(f, shape(4, 256), kA, INT_MAX - 100)), "none");
  EXPECT_EQ(text(launch(f, shape(4, 256), kA)), "none");  // an argument missing
}

INSTANTIATE_TEST_SUITE_P(Targets, PtxFootprint, testing::Values(75, 90),
                         [](const testing::TestParamInfo<int>& target) { return "compute_" + std::to_string(target.param); });

TEST(PtxText, TheKernelsOfAModuleAreListed) {
  const std::string ptx = ".visible .entry first(\n.param .u64 first_param_0\n)\n{\nret;\n}\n"
                          ".visible .entry second()\n{\nret;\n}\n";
  EXPECT_EQ(entry_names(ptx), (std::vector<std::string>{"first", "second"}));
  const auto f = read_entry(ptx, "first");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->parameters, std::vector<std::string>{"first_param_0"});
  EXPECT_EQ(f->instructions.size(), 1u);
  EXPECT_FALSE(read_entry(ptx, "third"));
}

}  // namespace
}  // namespace hazardlab::check::ptx
