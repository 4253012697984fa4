// Allocations and frees, decoded into Allocated and Released: pinned host memory (which copies hold and
// launches look up), device memory, a stream-ordered pool's blocks, managed memory and virtual memory maps
// (which launches look up). Allocations are taken at the call's exit when it succeeded; synchronous frees at its
// entry, while the memory still exists. Every allocation goes to the core's one registry (Checker::allocations).
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

#include "checker/inject/call.hpp"
#include "checker/inject/events.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/reporting.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

std::uint64_t thread_id() { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

void take(const Allocated& a) {
  Checker& checker = session().checker;
  // Pinned memory is also looked up by launches: with unified addressing a kernel reaches it at its host address
  // (mapped pinned memory; registered memory where the device can use the host pointer, as on every GPU this
  // project was measured on).
  if (a.kind == Allocation::Pinned) checker.pinned_allocated(a.base, a.bytes, a.pinned);
  checker.allocations().device_visible(a.base, a.bytes);
  // A stream-ordered pool's block: the pool orders its new owner after the free that returned it.
  if (a.kind == Allocation::PoolBlock) checker.device_memory_renewed(a.base, a.base + a.bytes);
}

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
      if (const std::size_t bytes = checker.allocations().device_gone(r.base))
        checker.device_memory_renewed(r.base, r.base + bytes);
      if (!found.empty()) in.writer.findings(found, {}, {}, false);
      return;
    }
    case Release::Free:
      // cuMemFree waits for the device: nothing that touched the memory can race with what comes after.
      if (const std::size_t bytes = checker.allocations().device_gone(r.base))
        checker.device_memory_renewed(r.base, r.base + bytes);
      return;
    case Release::Unmap:
      checker.allocations().device_gone(r.base);
      checker.device_memory_renewed(r.base, r.base + r.bytes);
      return;
    case Release::StreamOrdered: {
      // cudaFreeAsync: the block is the pool's again once the free runs, so the free writes all of it on its stream.
      std::vector<DeviceRange> ranges;
      if (const std::size_t bytes = checker.allocations().device_gone(r.base); bytes > 0 && !capturing(r.handle))
        add_range(r.base, bytes, DeviceAccessKind::Write, ranges);
      checker.device_work(r.stream, DeviceWorkItem{"cuMemFreeAsync", DeviceWorkKind::FreeAsync, std::move(ranges)},
                          [] { return capture_site(); });
      write_races();
      return;
    }
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
      return take(Allocated{Allocation::Device, *PARAMS(cuMemAllocManaged).dptr, PARAMS(cuMemAllocManaged).bytesize});
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
