// The copy's stack, as libunwind's cached walk gives it, against glibc's backtrace() (libgcc's unwinder): the
// same frames, the caller's first, on any thread, twice in a row (the second walk is the cached one).
#include <execinfo.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "checker/fault/call_stack.hpp"

namespace hazardlab::check {
namespace {

struct Both {
  std::vector<std::uintptr_t> ours, glibcs;
};

// Both stacks from one frame. Their first entries are two different return addresses in this function (one
// after each call); every frame beyond is the same.
__attribute__((noinline)) Both capture_both() {
  Both b;
  b.ours.resize(kMaxSiteFrames);
  b.ours.resize(static_cast<std::size_t>(capture_stack(b.ours.data(), kMaxSiteFrames)));
  void* raw[kMaxSiteFrames];
  const int n = backtrace(raw, kMaxSiteFrames);
  for (int i = 0; i < n; ++i) b.glibcs.push_back(reinterpret_cast<std::uintptr_t>(raw[i]));
  return b;
}

volatile int depth_sink = 0;
__attribute__((noinline)) Both nested(int depth) {
  if (depth == 0) return capture_both();
  Both b = nested(depth - 1);
  depth_sink = depth_sink + 1;  // not a tail call: each level keeps a frame of its own
  return b;
}

void expect_same_frames(const Both& b) {
  ASSERT_EQ(b.ours.size(), b.glibcs.size());
  ASSERT_GE(b.ours.size(), 2u);
  for (std::size_t i = 1; i < b.ours.size(); ++i) EXPECT_EQ(b.ours[i], b.glibcs[i]) << "frame " << i;
  // The first frame is capture_both's, not capture_stack's own: a return address close after glibc's.
  EXPECT_LT(b.ours[0], b.glibcs[0]);
  EXPECT_LT(b.glibcs[0] - b.ours[0], 256u);
}

TEST(CallStack, IsTheStackGlibcsBacktraceGivesFromTheCallersFrame) {
  for (int round = 0; round < 2; ++round) {  // the second walk comes from the unwinder's cache
    SCOPED_TRACE(round);
    expect_same_frames(nested(12));
  }
}

TEST(CallStack, IsCutAtTheFramesAskedForAndAtTheSitesLimit) {
  std::uintptr_t few[3];
  EXPECT_EQ(capture_stack(few, 3), 3);
  EXPECT_EQ(capture_stack(few, 0), 0);
  const Both deep = nested(kMaxSiteFrames + 10);
  EXPECT_EQ(deep.ours.size(), static_cast<std::size_t>(kMaxSiteFrames));
}

TEST(CallStack, AnotherThreadsStackIsItsOwn) {
  Both b;
  std::thread([&] { b = nested(5); }).join();
  expect_same_frames(b);
}

__attribute__((noinline)) SiteId site_here_a() {
  std::uintptr_t f[kMaxSiteFrames];
  return site_of(f, capture_stack(f, kMaxSiteFrames));
}
__attribute__((noinline)) SiteId site_here_b() {
  std::uintptr_t f[kMaxSiteFrames];
  return site_of(f, capture_stack(f, kMaxSiteFrames));
}

TEST(CallStack, OneCallSiteIsOneSiteAndTwoAreTwo) {
  std::vector<SiteId> same;
  for (int i = 0; i < 3; ++i) same.push_back(site_here_a());
  EXPECT_EQ(same[0], same[1]);
  EXPECT_EQ(same[1], same[2]);
  EXPECT_NE(site_here_a(), site_here_b());
}

}  // namespace
}  // namespace hazardlab::check
