// What the Checker tells the page protection: each hold as it starts and ends, and the pinned memory the holds
// lie in. The fault path implements it (checker/fault); the tests record it.
#pragma once

#include <cstdint>
#include <vector>

#include "checker/core/pages.hpp"

namespace hazardlab::check {

// Applies page protection (in the injected library by mprotect or by protection keys; a record in the tests).
// Told each copy's hold as it starts and ends, on the thread that starts or ends it, with the pages whose
// access (all holds together) it changed; and the pinned memory the holds lie in.
class PageProtector {
 public:
  virtual ~PageProtector() = default;
  // Protects pages as the holds want them now.
  virtual void apply(const PageChange& change) = 0;
  // By default the changed pages are protected as they are now; a key plan (key_plan.hpp) decides by the
  // hold itself and the thread instead.
  virtual void held(std::uintptr_t begin, std::uintptr_t end, Hold hold, const std::vector<PageChange>& changes) {
    (void)begin, (void)end, (void)hold;
    for (const PageChange& c : changes) apply(c);
  }
  virtual void let_go(std::uintptr_t begin, std::uintptr_t end, Hold hold, const std::vector<PageChange>& changes) {
    (void)begin, (void)end, (void)hold;
    for (const PageChange& c : changes) apply(c);
  }
  // Pinned or registered host memory; and the same no longer pinned, after every hold on it was let go.
  virtual void pinned(std::uintptr_t begin, std::uintptr_t end) { (void)begin, (void)end; }
  virtual void unpinned(std::uintptr_t begin, std::uintptr_t end) { (void)begin, (void)end; }
};

}  // namespace hazardlab::check
