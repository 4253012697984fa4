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

#include "checker/core/checker.hpp"
#include "checker/ptx/footprint_at_launch.hpp"
#include "checker/ptx/kernel_reading.hpp"
#include "checker/ptx/ptx_text.hpp"
#include "checker/tests/no_protection.hpp"

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

// The checker's device half, fed what each kernel touches: NVIDIA's overlap sample (version 1: on each of four
// streams, a chunk's upload, the kernel handed the base pointer and the chunk's offset, the chunk's download).
// By the rule, every stream's kernel touches the first element, on chunk 0, which stream 0 copies: a false alarm.
// By the kernels' PTX, each stream touches its own chunk only: no race.
class PtxReplay : public PtxFootprint {
 protected:
  NoProtection protection;
  Checker checker{protection};
  static constexpr int kStreams = 4, kChunk = 1024;
  std::uint64_t stream_base = 0x100;
  StreamKey stream(int i) const { return StreamKey{1, stream_base + static_cast<std::uint64_t>(i)}; }
  void copy(int i, const char* api, DeviceAccessKind kind) {
    const std::uintptr_t begin = kA + sizeof(float) * kChunk * i;
    checker.device_work(stream(i), DeviceWorkItem{api, DeviceWorkKind::Copy, {{begin, begin + 4 * kChunk, kind}}},
                        [i] { return SiteId{10u + static_cast<unsigned>(i)}; });
  }
  void kernel(int i, const char* name, std::vector<DeviceRange> ranges, RangeSource from) {
    checker.device_work(stream(i), DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel, std::move(ranges), name, from},
                        [i] { return SiteId{20u + static_cast<unsigned>(i)}; });
  }
};

TEST_P(PtxReplay, TheOverlapSampleIsCleanByItsKernelsPtxAndAFalseAlarmByTheRule) {
  const KernelFootprint f = read("overlap");
  const DeviceAllocation allocation{kA, sizeof(float) * kChunk * kStreams};
  for (const bool by_ptx : {false, true}) {
    stream_base += 0x10;  // the second program's streams are new ones
    for (int i = 0; i < kStreams; ++i) checker.stream_created(stream(i), StreamKind::Blocking);
    for (int i = 0; i < kStreams; ++i) {
      copy(i, "cuMemcpyHtoDAsync", DeviceAccessKind::Write);
      const std::uintptr_t base = kA;
      const int offset = i * kChunk;
      if (by_ptx) {
        const auto ranges = launch(f, shape(kChunk / 256, 256), base, offset);
        ASSERT_TRUE(ranges);
        kernel(i, "overlap", *ranges, RangeSource::ReadFromPtx);
      } else {
        const KernelArgument pointer{std::as_bytes(std::span(&base, 1)), ArgumentAccess::MayWrite};
        kernel(i, "overlap", kernel_ranges(std::span(&pointer, 1), std::span(&allocation, 1)), RangeSource::PointedElement);
      }
      copy(i, "cuMemcpyDtoHAsync", DeviceAccessKind::Read);
    }
    const std::vector<Finding> races = checker.take_races();
    if (by_ptx) {
      EXPECT_TRUE(races.empty()) << races.size() << " races by the PTX footprints";
    } else {
      ASSERT_FALSE(races.empty());
      EXPECT_EQ(races.front().race->later.source, RangeSource::PointedElement);
    }
    checker.context_synchronized(1);
  }
}

// CuPy's two-stream race in the shape of kernels without C++ signatures: one kernel writes a buffer on one
// stream, another reads it on a second with no event. By the rule both may write, and two may-writes never race
// (they may both only read); by their PTX, a write and a read: found, and the finding says the PTX judged.
TEST_P(PtxReplay, AWriteAndAReadOfOneBufferOnTwoStreamsAreARaceByTheirPtx) {
  checker.stream_created(stream(0), StreamKind::NonBlocking);
  checker.stream_created(stream(1), StreamKind::NonBlocking);
  const auto written = launch(read("guarded_axpy"), shape(4, 256), kB, kA, 1.0f, 1000);
  const auto summed = launch(read("block_sum"), shape(1, 256), kA, kB + 8192, 1000);
  ASSERT_TRUE(written && summed);
  kernel(0, "guarded_axpy", *written, RangeSource::ReadFromPtx);
  kernel(1, "block_sum", *summed, RangeSource::ReadFromPtx);
  const std::vector<Finding> races = checker.take_races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].race->earlier.access, DeviceAccessKind::Write);
  EXPECT_EQ(races[0].race->later.access, DeviceAccessKind::Read);
  EXPECT_EQ(races[0].race->later.source, RangeSource::ReadFromPtx);
  EXPECT_EQ(races[0].address, kA);
}

INSTANTIATE_TEST_SUITE_P(Targets, PtxReplay, testing::Values(75, 90),
                         [](const testing::TestParamInfo<int>& target) { return "compute_" + std::to_string(target.param); });

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
