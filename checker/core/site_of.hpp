// A call site known already, or one to be worked out only when needed: a function pointer and its argument, so
// that a fault handler allocates nothing, and work on a program's only stream never walks a stack.
#pragma once

#include "checker/core/finding.hpp"

namespace hazardlab::check {

struct SiteOf {
  SiteId known = 0;
  SiteId (*make)(void*) = nullptr;
  void* argument = nullptr;
  explicit SiteOf(SiteId id) : known(id) {}
  template <class F>
  SiteOf(F& f, int) : make([](void* a) -> SiteId { return (*static_cast<F*>(a))(); }), argument(&f) {}
  [[nodiscard]] SiteId get() const { return make != nullptr ? make(argument) : known; }
};

}  // namespace hazardlab::check
