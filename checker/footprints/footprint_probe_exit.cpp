// The footprint probe's report at exit: the first launches' footprints as offsets into their allocations, read back
// once every launch has run, then one line of what the probe saw.
#include <cuda.h>

#include <cstdio>

#include "checker/footprints/footprint_probe.hpp"
#include "checker/footprints/footprint_record.hpp"

namespace hazardlab::check::footprints::probe_state {

namespace {

void print_footprints() {
  Probe& p = probe();
  for (const Launch& l : p.launches) {
    LaunchRecord r{};
    if (!SAN(sanitizerMemcpyDeviceToHost(&r, reinterpret_cast<void*>(l.record), sizeof r, nullptr))) return;
    std::fprintf(stderr, "footprint %s%s%s", l.kernel.c_str(), r.outside_every_allocation ? " outside" : "",
                 r.more_allocations_than_slots ? " slots-full" : "");
    for (const Slot& s : r.slots) {
      if (s.allocation == 0) continue;
      const auto span = [&](const char* what, const Hull& h) {
        if (h.end == 0) return;
        std::fprintf(stderr, " %s[alloc %#llx +%llu,+%llu)", what, s.allocation, ~h.least_inverted - s.allocation,
                     h.end - s.allocation);
      };
      span("read", s.read);
      span("write", s.write);
    }
    std::fprintf(stderr, "\n");
  }
}

}  // namespace

void report_at_exit() {
  Probe& p = probe();
  std::lock_guard lock(p.mutex);
  if (p.mode == Mode::Record && !p.failed && p.print > 0) {
    const CUresult done = cuCtxSynchronize();  // every launch has run: its record is whole
    if (done == CUDA_SUCCESS) print_footprints();
    else std::fprintf(stderr, "footprint-probe: cuCtxSynchronize failed at %s:%d (%d)\n", __FILE__, __LINE__, static_cast<int>(done));
  }
  std::fprintf(stderr,
               "footprint-probe mode=%s modules_patched=%ld sanitizer_launches=%ld cupti_launches=%ld unrecorded=%ld "
               "failures=%ld\n",
               p.mode == Mode::Off ? "off" : p.mode == Mode::Null ? "null" : "record", p.modules_patched.load(),
               p.sanitizer_launches.load(), p.cupti ? p.cupti_launches.load() : -1L, p.unrecorded.load(),
               p.failures.load());
}

}  // namespace hazardlab::check::footprints::probe_state
