// Copies, decoded: the asynchronous ones (1D, 2D, 3D, device to device, between devices) into CopyEnqueued,
// taken at the call's exit when it succeeded; the synchronous ones into what the host then waits for.
#include <vector>

#include "checker/inject/call.hpp"
#include "checker/inject/core_steps.hpp"
#include "checker/inject/events.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

CopyEnqueued copy_3d(std::string_view api, const CUDA_MEMCPY3D& c, CUstream handle, StreamKey stream) {
  return CopyEnqueued{api, handle, stream, end_of(c, CopySide::Source), end_of(c, CopySide::Destination), copy_bytes(c), copy_device_ranges(c)};
}

CopyEnd linear_end(MemoryKind kind, std::uintptr_t base, std::size_t bytes) {
  return {kind, HostFootprint::linear(base, bytes)};
}

void take(const CopyCompleted& copy) { session().checker.copy_sync(copy.context, copy.src, copy.dst); }

}  // namespace

void copy_h2d_async(const Call& c) {
  const auto& p = PARAMS(cuMemcpyHtoDAsync_v2);
  std::vector<DeviceRange> device;
  add_range(p.dstDevice, p.ByteCount, DeviceAccessKind::Write, device);
  take(CopyEnqueued{"cuMemcpyHtoDAsync", p.hStream, c.stream(p.hStream),
                    linear_end(host_kind(p.srcHost), reinterpret_cast<std::uintptr_t>(p.srcHost), p.ByteCount),
                    {MemoryKind::Device, {}}, p.ByteCount, std::move(device)});
}
void copy_d2h_async(const Call& c) {
  const auto& p = PARAMS(cuMemcpyDtoHAsync_v2);
  std::vector<DeviceRange> device;
  add_range(p.srcDevice, p.ByteCount, DeviceAccessKind::Read, device);
  take(CopyEnqueued{"cuMemcpyDtoHAsync", p.hStream, c.stream(p.hStream), {MemoryKind::Device, {}},
                    linear_end(host_kind(p.dstHost), reinterpret_cast<std::uintptr_t>(p.dstHost), p.ByteCount),
                    p.ByteCount, std::move(device)});
}
void copy_async(const Call& c) {
  const auto& p = PARAMS(cuMemcpyAsync);
  const MemoryKind src = kind_of(p.src), dst = kind_of(p.dst);
  std::vector<DeviceRange> device;
  auto on_device = [](MemoryKind k) { return k == MemoryKind::Device || k == MemoryKind::Managed; };
  if (on_device(src)) add_range(p.src, p.ByteCount, DeviceAccessKind::Read, device);
  if (on_device(dst)) add_range(p.dst, p.ByteCount, DeviceAccessKind::Write, device);
  take(CopyEnqueued{"cuMemcpyAsync", p.hStream, c.stream(p.hStream), linear_end(src, p.src, p.ByteCount),
                    linear_end(dst, p.dst, p.ByteCount), p.ByteCount, std::move(device)});
}
void copy_2d_async(const Call& c) {
  const auto& p = PARAMS(cuMemcpy2DAsync_v2);
  take(copy_3d("cuMemcpy2DAsync", as_3d(*p.pCopy), p.hStream, c.stream(p.hStream)));
}
void copy_3d_async(const Call& c) {
  const auto& p = PARAMS(cuMemcpy3DAsync_v2);
  take(copy_3d("cuMemcpy3DAsync", *p.pCopy, p.hStream, c.stream(p.hStream)));
}
// A device-to-device copy (within a device or between two): it reads its source and writes its destination.
void copy_d2d_async(const Call& c) {
  const bool peer = c.is(CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync) || c.is(CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz);
  const CUdeviceptr src = peer ? PARAMS(cuMemcpyPeerAsync).srcDevice : PARAMS(cuMemcpyDtoDAsync_v2).srcDevice;
  const CUdeviceptr dst = peer ? PARAMS(cuMemcpyPeerAsync).dstDevice : PARAMS(cuMemcpyDtoDAsync_v2).dstDevice;
  const std::size_t bytes = peer ? PARAMS(cuMemcpyPeerAsync).ByteCount : PARAMS(cuMemcpyDtoDAsync_v2).ByteCount;
  const CUstream handle = peer ? PARAMS(cuMemcpyPeerAsync).hStream : PARAMS(cuMemcpyDtoDAsync_v2).hStream;
  std::vector<DeviceRange> device;
  add_range(src, bytes, DeviceAccessKind::Read, device);
  add_range(dst, bytes, DeviceAccessKind::Write, device);
  take(CopyEnqueued{peer ? "cuMemcpyPeerAsync" : "cuMemcpyDtoDAsync", handle, c.stream(handle),
                    {MemoryKind::Device, {}}, {MemoryKind::Device, {}}, bytes, std::move(device)});
}

// Synchronous copies (rule 8).
void copy_sync_h2d(const Call& c) {
  take(CopyCompleted{c.context(), host_kind(PARAMS(cuMemcpyHtoD_v2).srcHost), MemoryKind::Device});
}
void copy_sync_d2h(const Call& c) {
  take(CopyCompleted{c.context(), MemoryKind::Device, host_kind(PARAMS(cuMemcpyDtoH_v2).dstHost)});
}
void copy_sync_d2d(const Call& c) { take(CopyCompleted{c.context(), MemoryKind::Device, MemoryKind::Device}); }
void copy_sync(const Call& c) {
  take(CopyCompleted{c.context(), kind_of(PARAMS(cuMemcpy).src), kind_of(PARAMS(cuMemcpy).dst)});
}
void copy_sync_2d(const Call& c) {
  // cuMemcpy2D and cuMemcpy2DUnaligned: the same one field.
  const CUDA_MEMCPY2D& m = *PARAMS(cuMemcpy2D_v2).pCopy;
  take(CopyCompleted{c.context(), kind_of_end(m.srcMemoryType, m.srcHost, m.srcDevice),
                     kind_of_end(m.dstMemoryType, m.dstHost, m.dstDevice)});
}
void copy_sync_3d(const Call& c) {
  const CUDA_MEMCPY3D& m = *PARAMS(cuMemcpy3D_v2).pCopy;
  take(CopyCompleted{c.context(), kind_of_end(m.srcMemoryType, m.srcHost, m.srcDevice),
                     kind_of_end(m.dstMemoryType, m.dstHost, m.dstDevice)});
}
void batch_copy(const Call&) {
  Session& in = session();
  if (in.batch_copies++ == 0) in.writer.note("cuMemcpyBatchAsync was called: its copies are not watched");
}

}  // namespace hazardlab::check::inject
