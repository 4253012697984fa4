// Allocations and frees, decoded into Allocated and Released: pinned host memory (which copies hold and
// launches look up), device memory, a stream-ordered pool's blocks, managed memory and virtual memory maps
// (which launches look up). Allocations are taken at the call's exit when it succeeded; synchronous frees at its
// entry, while the memory still exists. Every allocation goes to the core's one registry (Checker::allocations).
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

#include "checker/inject/call.hpp"
#include "checker/inject/core_steps.hpp"
#include "checker/inject/events.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/reporting.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

std::uint64_t thread_id() { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

void take(const Allocated& a) { allocated(session().checker, a); }

void take(const Released& r) {
  Session& in = session();
  Checker& checker = in.checker;
  switch (r.kind) {
    case Release::PinnedFree:
    case Release::Unregister: {
      const std::vector<Finding> found =
          checker.pinned_released(r.base, r.kind == Release::Unregister, capture_site(), thread_id());
      // The memory is no longer the device's to reach: what a later allocation at the same address holds is other
      // memory. (A free while work may still use it is the host's half: free-while-in-flight, found above.)
      released_synchronously(checker, r);
      if (!found.empty()) in.writer.findings(found, {}, {}, false);
      return;
    }
    case Release::Free:
    case Release::Unmap: return released_synchronously(checker, r);
    case Release::StreamOrdered:
      checker.device_work(r.stream, freed_on_stream(checker, r, capturing(r.handle)), [] { return capture_site(); });
      write_races();
      return;
  }
}

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace

void host_alloc(const Call& c) {
  const auto& p = PARAMS(cuMemHostAlloc);
  take(Allocated{Allocation::Pinned, address(*p.pp), p.bytesize,
                 (p.Flags & CU_MEMHOSTALLOC_WRITECOMBINED) ? PinnedKind::WriteCombined : PinnedKind::HostAlloc});
}
void alloc_host(const Call& c) {
  const auto& p = PARAMS(cuMemAllocHost_v2);
  take(Allocated{Allocation::Pinned, address(*p.pp), p.bytesize, PinnedKind::HostAlloc});
}
void host_register(const Call& c) {
  const auto& p = PARAMS(cuMemHostRegister_v2);
  take(Allocated{Allocation::Pinned, address(p.p), p.bytesize, PinnedKind::Registered});
}
void pinned_released(const Call& c) {
  const bool unregister = c.is(CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister);
  const void* p = unregister ? PARAMS(cuMemHostUnregister).p : PARAMS(cuMemFreeHost).p;
  take(Released{.kind = unregister ? Release::Unregister : Release::PinnedFree, .base = address(p)});
}

void device_alloc(const Call& c) {
  switch (c.cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
      const auto& p = PARAMS(cuMemAllocPitch_v2);
      return take(Allocated{Allocation::Device, *p.dptr, *p.pPitch * p.Height});
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
      return take(Allocated{Allocation::Managed, *PARAMS(cuMemAllocManaged).dptr, PARAMS(cuMemAllocManaged).bytesize});
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap:
      return take(Allocated{Allocation::Device, PARAMS(cuMemMap).ptr, PARAMS(cuMemMap).size});
    default: return take(Allocated{Allocation::Device, *PARAMS(cuMemAlloc_v2).dptr, PARAMS(cuMemAlloc_v2).bytesize});
  }
}
void device_alloc_async(const Call& c) {
  const bool from_pool = c.name().starts_with("cuMemAllocFromPoolAsync");
  const CUdeviceptr base = from_pool ? *PARAMS(cuMemAllocFromPoolAsync).dptr : *PARAMS(cuMemAllocAsync).dptr;
  const std::size_t bytes = from_pool ? PARAMS(cuMemAllocFromPoolAsync).bytesize : PARAMS(cuMemAllocAsync).bytesize;
  take(Allocated{Allocation::PoolBlock, base, bytes});
}
void device_free(const Call& c) { take(Released{.kind = Release::Free, .base = PARAMS(cuMemFree_v2).dptr}); }
void device_unmap(const Call& c) {
  take(Released{.kind = Release::Unmap, .base = PARAMS(cuMemUnmap).ptr, .bytes = PARAMS(cuMemUnmap).size});
}
void device_free_async(const Call& c) {
  const auto& p = PARAMS(cuMemFreeAsync);
  take(Released{Release::StreamOrdered, p.dptr, 0, p.hStream, c.stream(p.hStream)});
}

}  // namespace hazardlab::check::inject
