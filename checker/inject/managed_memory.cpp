// Managed memory under `--managed-memory`: a kernel handed a pointer into a managed allocation holds all of it until
// the host knows the kernel ran (the core's KernelHold, protected by the same protector as pinned holds), and a
// prefetch or an attach, decoded into ManagedWorkQueued, is stream work that lets no hold go.
//
// Protecting a managed range is one decision, taken at each hold: where the protector fails on one (the driver's
// mapping may refuse mprotect or a key), managed memory is held no more, every managed hold is let go, and the log
// says managed memory was not watched, so the run is never called clean.
#include <string>

#include "checker/inject/call.hpp"
#include "checker/inject/core_steps.hpp"
#include "checker/inject/events.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

void stop_watching_managed_memory() {
  Session& in = session();
  if (in.managed_unwatched.exchange(true)) return;
  in.checker.let_go_managed_holds();
  in.writer.note("managed memory was not watched: protecting the pages of a managed allocation a kernel was handed "
                 "failed (" + in.protector.first_failure().value_or("?") +
                 "), so host accesses to managed memory while kernels may use it were not checked from then on");
}

void take(const ManagedWorkQueued& work) {
  if (!session().core.settings.managed_memory) return;
  managed_work_queued(session().checker, work, capturing(work.handle));
}

bool to_host(const CUmemLocation& location) {
  return location.type == CU_MEM_LOCATION_TYPE_HOST || location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
         location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
}

QueuedBehindKernel prefetch_kind(bool host) {
  return host ? QueuedBehindKernel::PrefetchToHost : QueuedBehindKernel::Nothing;
}

}  // namespace

void hold_managed_arguments(CUstream handle, StreamKey stream, const LaunchAccesses& accesses) {
  Session& in = session();
  if (in.managed_unwatched) return;
  for (const KernelHold& hold : managed_holds(in.checker.allocations(), accesses.kernel, stream, accesses.ranges)) {
    const std::uint64_t failures_before = in.protector.failures();
    take(KernelHeld{handle, hold});
    if (in.protector.failures() != failures_before) return stop_watching_managed_memory();
  }
}

void managed_prefetched(const Call& c) {
  switch (c.cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_ptsz: {
      const auto& p = PARAMS(cuMemPrefetchAsync);
      return take(ManagedWorkQueued{prefetch_kind(p.dstDevice == CU_DEVICE_CPU), p.hStream, c.stream(p.hStream),
                                    p.devPtr, p.count});
    }
    default: {  // _v2 and its _ptsz form: the same fields
      const auto& p = PARAMS(cuMemPrefetchAsync_v2);
      return take(ManagedWorkQueued{prefetch_kind(to_host(p.location)), p.hStream, c.stream(p.hStream), p.devPtr,
                                    p.count});
    }
  }
}

void managed_attached(const Call& c) {
  const auto& p = PARAMS(cuStreamAttachMemAsync);  // the _ptsz form: the same fields
  take(ManagedWorkQueued{QueuedBehindKernel::StreamAttach, p.hStream, c.stream(p.hStream), p.dptr, p.length});
}

}  // namespace hazardlab::check::inject
