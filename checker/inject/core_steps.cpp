#include "checker/inject/core_steps.hpp"

#include <algorithm>
#include <optional>

#include "checker/inject/device_ranges.hpp"

namespace hazardlab::check::inject {

namespace {

CopyEndShape shape_of(const CUDA_MEMCPY3D& c, CopySide side) {
  const std::size_t depth = c.Depth == 0 ? 1 : c.Depth;
  if (side == CopySide::Source)
    return {c.srcMemoryType, c.srcDevice, c.srcXInBytes, c.srcY, c.srcZ, c.srcPitch, c.srcHeight, c.WidthInBytes,
            c.Height, depth};
  return {c.dstMemoryType, c.dstDevice, c.dstXInBytes, c.dstY, c.dstZ, c.dstPitch, c.dstHeight, c.WidthInBytes,
          c.Height, depth};
}

}  // namespace

CUDA_MEMCPY3D as_3d(const CUDA_MEMCPY2D& m) {
  CUDA_MEMCPY3D c3{};
  c3.srcXInBytes = m.srcXInBytes, c3.srcY = m.srcY, c3.srcMemoryType = m.srcMemoryType, c3.srcHost = m.srcHost;
  c3.srcDevice = m.srcDevice, c3.srcPitch = m.srcPitch, c3.dstXInBytes = m.dstXInBytes, c3.dstY = m.dstY;
  c3.dstMemoryType = m.dstMemoryType, c3.dstHost = m.dstHost, c3.dstDevice = m.dstDevice, c3.dstPitch = m.dstPitch;
  c3.WidthInBytes = m.WidthInBytes, c3.Height = m.Height, c3.Depth = 1;
  return c3;
}

std::size_t copy_bytes(const CUDA_MEMCPY3D& c) { return c.WidthInBytes * c.Height * (c.Depth == 0 ? 1 : c.Depth); }

std::vector<DeviceRange> copy_device_ranges(const CUDA_MEMCPY3D& c) {
  std::vector<DeviceRange> device;
  add_copy_end_ranges(shape_of(c, CopySide::Source), DeviceAccessKind::Read, device);
  add_copy_end_ranges(shape_of(c, CopySide::Destination), DeviceAccessKind::Write, device);
  return device;
}

void allocated(Checker& checker, const Allocated& a) {
  // Pinned memory is also looked up by launches: with unified addressing a kernel reaches it at its host address
  // (mapped pinned memory; registered memory where the device can use the host pointer, as on every GPU this
  // project was measured on).
  if (a.kind == Allocation::Pinned) checker.pinned_allocated(a.base, a.bytes, a.pinned);
  if (a.kind == Allocation::Managed)
    checker.allocations().managed(a.base, a.bytes);
  else
    checker.allocations().device_visible(a.base, a.bytes);
  if (a.kind == Allocation::PoolBlock) checker.device_memory_renewed(a.base, a.base + a.bytes);
}

void released_synchronously(Checker& checker, const Released& r) {
  if (r.kind == Release::Unmap) {
    checker.allocations().device_gone(r.base);
    checker.device_memory_renewed(r.base, r.base + r.bytes);
    return;
  }
  if (const std::size_t bytes = checker.allocations().device_gone(r.base)) {
    checker.device_memory_renewed(r.base, r.base + bytes);
    checker.holds_freed(r.base, r.base + bytes);  // a kernel's hold on managed memory: the free waited for it
  }
}

std::vector<KernelHold> managed_holds(const Allocations& allocations, std::string_view kernel, StreamKey stream,
                                      const std::vector<DeviceRange>& launch_ranges) {
  std::vector<KernelHold> holds;
  for (const DeviceRange& r : launch_ranges) {
    const std::optional<ManagedRange> managed = allocations.managed_at(r.begin);
    if (!managed) continue;
    const KernelUse use = r.kind == DeviceAccessKind::Read ? KernelUse::Reads : KernelUse::MayWrite;
    const auto same = std::find_if(holds.begin(), holds.end(),
                                   [&](const KernelHold& h) { return h.host.base == managed->base; });
    if (same != holds.end()) {
      if (use == KernelUse::MayWrite) same->use = use;
      continue;
    }
    holds.push_back(KernelHold{kernel, stream, HostFootprint::linear(managed->base, managed->bytes), use, 0,
                               KernelHeldMemory::Managed});
  }
  return holds;
}

void managed_work_queued(Checker& checker, const ManagedWorkQueued& work, bool captured) {
  checker.work_enqueued(work.stream);
  if (captured || work.queued == QueuedBehindKernel::Nothing) return;
  std::uintptr_t begin = work.base, end = work.base + work.bytes;
  if (work.bytes == 0) {  // an attach of length 0: the whole allocation
    const std::optional<ManagedRange> whole = checker.allocations().managed_at(work.base);
    if (!whole) return;
    begin = whole->base, end = whole->base + whole->bytes;
  }
  checker.queued_behind_managed_holds(begin, end, work.queued);
}

DeviceWorkItem freed_on_stream(Checker& checker, const Released& r, bool captured) {
  std::vector<DeviceRange> ranges;
  if (const std::size_t bytes = checker.allocations().device_gone(r.base); bytes > 0 && !captured)
    add_range(r.base, bytes, DeviceAccessKind::Write, ranges);
  return DeviceWorkItem{"cuMemFreeAsync", DeviceWorkKind::FreeAsync, std::move(ranges)};
}

}  // namespace hazardlab::check::inject
