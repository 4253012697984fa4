#include "checker/fault/call_stack.hpp"

// The local unwinder only: the checked process's own stack, never another's.
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <algorithm>

#include "hazardlab/fnv1a.hpp"

namespace hazardlab::check {

SiteId site_of(const std::uintptr_t* frames, int count) {
  SiteId h = kFnv1aOffsetBasis;  // over the frames' addresses, a word at a time
  for (int i = 0; i < count && i < kMaxSiteFrames; ++i) h = fnv1a_word(frames[i], h);
  return h;
}

// By libunwind's unw_backtrace, not libgcc's _Unwind_Backtrace (nor glibc's backtrace(), which calls it):
// libgcc finds and decodes every frame's call-frame information again on each walk, about 130 ns a frame, so a
// copy issued 20 frames deep paid some 3 us for its stack. unw_backtrace remembers each return address's frame
// layout in a per-thread cache and walks a stack it has seen before in a few ns a frame; a frame it cannot
// cache (a signal frame, one without call-frame information) it steps through as libgcc would.
__attribute__((noinline)) int capture_stack(std::uintptr_t* frames, int max) {
  void* raw[kMaxSiteFrames + 1];  // this function's own frame first
  const int wanted = std::clamp(max, 0, kMaxSiteFrames) + 1;
  const int n = unw_backtrace(raw, wanted);
  int count = 0;
  for (int i = 1; i < n; ++i) frames[count++] = reinterpret_cast<std::uintptr_t>(raw[i]);
  return count;
}

}  // namespace hazardlab::check
