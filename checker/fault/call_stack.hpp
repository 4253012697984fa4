// The native stack of a call the checker watches (a copy, a free), and the site it names. Captured on the path
// every watched copy takes, so it must cost little: see call_stack.cpp for how.
#pragma once

#include <cstdint>

#include "checker/core/checker.hpp"

namespace hazardlab::check {

// The site of a stack: a hash of its frames.
SiteId site_of(const std::uintptr_t* frames, int count);

// The most frames a site keeps; deeper stacks are cut there.
inline constexpr int kMaxSiteFrames = 48;

// The calling thread's stack, innermost first (its first frame the caller's return address, as glibc's
// backtrace() gives it), at most `max` frames, and at most kMaxSiteFrames.
int capture_stack(std::uintptr_t* frames, int max);

}  // namespace hazardlab::check
