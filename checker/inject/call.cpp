#include "checker/inject/call.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

const CUstream kPerThreadHandle = CU_STREAM_PER_THREAD;
const CUstream kLegacyHandle = CU_STREAM_LEGACY;

CUcontext current_context(const CUpti_CallbackData* d) {
  if (d->context != nullptr) return d->context;
  CUcontext c = nullptr;
  cuCtxGetCurrent(&c);
  return c;
}

}  // namespace

std::uint64_t key_of(CUcontext c) { return reinterpret_cast<std::uint64_t>(c); }

std::uint64_t context_key(const CUpti_CallbackData* d) { return key_of(current_context(d)); }

StreamKey stream_key(CUstream handle, const CUpti_CallbackData* d, bool per_thread_form) {
  Session& in = session();
  const std::uint64_t context = key_of(current_context(d));
  if (handle == kPerThreadHandle || (handle == nullptr && per_thread_form)) {
    // Each host thread's own default stream: synchronizes with the legacy stream like a blocking stream.
    const StreamKey key{context, 0x2 | (static_cast<std::uint64_t>(::syscall(SYS_gettid)) << 8)};
    return in.core.handles.stream(key.handle, [&] {
      in.checker.stream_created(key, StreamKind::Blocking);
      return key;
    });
  }
  if (handle == nullptr || handle == kLegacyHandle) return StreamKey{context, 0};
  return in.core.handles.stream(reinterpret_cast<std::uint64_t>(handle), [&] {
    // A stream the checker did not see created: ask the driver what it is.
    unsigned int flags = 0;
    CUcontext owner = nullptr;
    bool known = false;
    {
      const OurCall ours;
      known = cuStreamGetFlags(handle, &flags) == CUDA_SUCCESS && cuStreamGetCtx(handle, &owner) == CUDA_SUCCESS;
    }
    const StreamKey key{key_of(known ? owner : current_context(d)), reinterpret_cast<std::uint64_t>(handle)};
    in.checker.stream_created(key, known && (flags & CU_STREAM_NON_BLOCKING) ? StreamKind::NonBlocking : StreamKind::Blocking);
    return key;
  });
}

MemoryKind kind_of(CUdeviceptr pointer) {
  if (session().checker.pinned_kind(pointer)) return MemoryKind::PinnedHost;
  CUmemorytype type{};
  unsigned int managed = 0;
  CUresult r = CUDA_SUCCESS;
  {
    const OurCall ours;
    r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, pointer);
    if (r == CUDA_SUCCESS) cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, pointer);
  }
  if (r != CUDA_SUCCESS) return MemoryKind::PageableHost;  // memory the driver does not know: ordinary host memory
  if (managed) return MemoryKind::Managed;
  return type == CU_MEMORYTYPE_HOST ? MemoryKind::PinnedHost : MemoryKind::Device;
}

MemoryKind host_kind(const void* p) {
  return session().checker.pinned_kind(reinterpret_cast<std::uintptr_t>(p)) ? MemoryKind::PinnedHost
                                                                            : MemoryKind::PageableHost;
}

MemoryKind kind_of_end(CUmemorytype type, const void* host, CUdeviceptr device) {
  if (type == CU_MEMORYTYPE_HOST) return host_kind(host);
  return type == CU_MEMORYTYPE_UNIFIED ? kind_of(device) : MemoryKind::Device;
}

CopyEnd end_of(const CUDA_MEMCPY3D& c, CopySide side) {
  const bool source = side == CopySide::Source;
  const CUmemorytype type = source ? c.srcMemoryType : c.dstMemoryType;
  const void* host = source ? c.srcHost : c.dstHost;
  const CUdeviceptr device = source ? c.srcDevice : c.dstDevice;
  CopyEnd end;
  std::uintptr_t base = 0;
  if (type == CU_MEMORYTYPE_HOST) {
    base = reinterpret_cast<std::uintptr_t>(host);
    end.kind = host_kind(host);
  } else if (type == CU_MEMORYTYPE_UNIFIED) {
    base = device;
    end.kind = kind_of(device);
  } else {
    end.kind = MemoryKind::Device;  // device memory or an array
    return end;
  }
  const std::size_t width = c.WidthInBytes, rows = c.Height, depth = c.Depth == 0 ? 1 : c.Depth;
  const std::size_t x = source ? c.srcXInBytes : c.dstXInBytes, y = source ? c.srcY : c.dstY;
  const std::size_t z = source ? c.srcZ : c.dstZ, height = source ? c.srcHeight : c.dstHeight;
  const std::size_t pitch = (source ? c.srcPitch : c.dstPitch) == 0 ? width : (source ? c.srcPitch : c.dstPitch);
  const std::size_t slice_pitch = pitch * (height == 0 ? rows : height);
  end.host = HostFootprint{base + z * slice_pitch + y * pitch + x, width, pitch, rows, depth, slice_pitch};
  return end;
}

std::optional<CUgraph> capture_graph(CUstream handle) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUgraph graph = nullptr;
  const OurCall ours;
  const CUresult r = cuStreamGetCaptureInfo(handle, &status, nullptr, &graph, nullptr, nullptr, nullptr);
  if (r != CUDA_SUCCESS || status == CU_STREAM_CAPTURE_STATUS_NONE) return std::nullopt;
  return graph;
}

bool capturing(CUstream handle) { return session().captures_open.load() > 0 && capture_graph(handle).has_value(); }

}  // namespace hazardlab::check::inject
