// The recorder as the injected library sees it (footprint_api.h): three C functions, looked up with dlsym.
#include <cstdio>
#include <span>
#include <string>

#include "checker/footprints/footprint_api.h"
#include "checker/footprints/footprint_recorder.hpp"

namespace fp = hazardlab::check::footprints;

extern "C" {

__attribute__((visibility("default"))) int hl_footprints_start(const char* patch_path, char* why, size_t why_size) {
  std::string reason;
  if (fp::recorder().start(patch_path, fp::Patching::Record, reason)) return 0;
  if (why != nullptr && why_size > 0) std::snprintf(why, why_size, "%s", reason.c_str());
  return 1;
}

__attribute__((visibility("default"))) uint64_t hl_footprints_take_ticket(void) { return fp::Recorder::take_ticket(); }

__attribute__((visibility("default"))) void hl_footprints_collect(const uint64_t* tickets, size_t count,
                                                                  hl_footprints_each_fn each, void* user) {
  fp::recorder().collect(std::span<const std::uint64_t>(tickets, count), each, user);
}

}  // extern "C"
