// A page protector that protects nothing, for the tests that judge the order of work and not the fault path.
#pragma once

#include "checker/core/page_protection.hpp"

namespace hazardlab::check {

struct NoProtection : PageProtector {
  void apply(const PageChange&) override {}
};

}  // namespace hazardlab::check
