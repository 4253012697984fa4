// Driver calls, as CUPTI reports them, told to the checker. Copies, allocations and synchronizations are
// taken at the call's exit and only when it succeeded; frees at the entry, while the memory still exists.
// A call's `_ptsz`/`_ptds` form is the same call on the per-thread default stream.
#include <cuda.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "checker/fault/fault_handler.hpp"
#include "checker/fault/python_stack.hpp"
#include "checker/inject/device_memory.hpp"
#include "checker/inject/driver_calls.hpp"
#include "checker/inject/process_state.hpp"
#include "hazardlab/fnv1a.hpp"

namespace hazardlab::check::inject {

namespace {

// The checker failed in its own code (an exception, a failed allocation): it stops watching, gives the
// program its memory back as it was and says why, so the run is never called clean, and the program runs on
// exactly as it would without the checker.
void stop_watching(const std::string& why) {
  Injection& in = injection();
  if (in.disabled.exchange(true)) return;
  try {
    in.checker.release_everything();
    in.writer.note("the checker stopped watching after an error of its own (" + why +
                   "); the rest of the run was not watched");
  } catch (...) {
    // Nothing more can be said; the missing summary makes the run not-checked.
  }
}

const CUstream kPerThreadHandle = CU_STREAM_PER_THREAD;
const CUstream kLegacyHandle = CU_STREAM_LEGACY;

std::uint64_t key_of(CUcontext c) { return reinterpret_cast<std::uint64_t>(c); }

CUcontext current_context(const CUpti_CallbackData* d) {
  if (d->context != nullptr) return d->context;
  CUcontext c = nullptr;
  cuCtxGetCurrent(&c);
  return c;
}

// The checker's key for a stream handle as the program passed it.
StreamKey stream_key(CUstream handle, const CUpti_CallbackData* d, bool per_thread_form) {
  Injection& in = injection();
  const std::uint64_t context = key_of(current_context(d));
  if (handle == kPerThreadHandle || (handle == nullptr && per_thread_form)) {
    // Each host thread's own default stream: synchronizes with the legacy stream like a blocking stream.
    const StreamKey key{context, 0x2 | (static_cast<std::uint64_t>(::syscall(SYS_gettid)) << 8)};
    std::lock_guard lock(in.mutex);
    if (!in.streams.count(reinterpret_cast<CUstream>(key.handle))) {
      in.streams[reinterpret_cast<CUstream>(key.handle)] = key;
      in.checker.stream_created(key, StreamKind::Blocking);
    }
    return key;
  }
  if (handle == nullptr || handle == kLegacyHandle) return StreamKey{context, 0};
  std::lock_guard lock(in.mutex);
  if (auto it = in.streams.find(handle); it != in.streams.end()) return it->second;
  // A stream the checker did not see created: ask the driver what it is.
  unsigned int flags = 0;
  CUcontext owner = nullptr;
  bool known = false;
  {
    const OurCall ours;
    known = cuStreamGetFlags(handle, &flags) == CUDA_SUCCESS && cuStreamGetCtx(handle, &owner) == CUDA_SUCCESS;
  }
  const StreamKey key{key_of(known ? owner : current_context(d)), reinterpret_cast<std::uint64_t>(handle)};
  in.streams[handle] = key;
  in.checker.stream_created(key, known && (flags & CU_STREAM_NON_BLOCKING) ? StreamKind::NonBlocking : StreamKind::Blocking);
  return key;
}

MemoryKind kind_of(CUdeviceptr pointer) {
  Injection& in = injection();
  if (in.checker.pinned_kind(pointer)) return MemoryKind::PinnedHost;
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
  return injection().checker.pinned_kind(reinterpret_cast<std::uintptr_t>(p)) ? MemoryKind::PinnedHost
                                                                              : MemoryKind::PageableHost;
}

// The memory kind of one end of a 2D or 3D copy.
MemoryKind kind_of_end(CUmemorytype type, const void* host, CUdeviceptr device) {
  if (type == CU_MEMORYTYPE_HOST) return host_kind(host);
  return type == CU_MEMORYTYPE_UNIFIED ? kind_of(device) : MemoryKind::Device;
}

// The call site of a copy or a free: its native stack and, in a Python program, its Python stack.
SiteId capture_site() {
  std::uintptr_t raw[kMaxSiteFrames];
  const int n = capture_stack(raw, kMaxSiteFrames);
  PythonStackText python;
  capture_python_stack(python, ThreadWithoutPython::NoFrames);
  const SiteId site = fnv1a(python.view(), site_of(raw, n));  // two Python lines through one native path: two sites
  Injection& in = injection();
  if (!in.writer.knows_site(site))
    in.writer.remember_site(site, std::vector<std::uintptr_t>(raw, raw + n),
                            parse_python_stack(std::string_view(python.text, static_cast<std::size_t>(python.length))));
  return site;
}

// One end of a 2D or 3D copy.
CopyEnd end_of(CUmemorytype type, const void* host, CUdeviceptr device, std::size_t x, std::size_t y, std::size_t z,
               std::size_t pitch, std::size_t height, std::size_t width, std::size_t rows, std::size_t depth) {
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
  if (pitch == 0) pitch = width;
  const std::size_t slice_pitch = pitch * (height == 0 ? rows : height);
  end.host = HostFootprint{base + z * slice_pitch + y * pitch + x, width, pitch, rows, depth, slice_pitch};
  return end;
}

std::optional<CUgraph> capture_graph(CUstream handle);

std::optional<CUgraph> capture_graph(CUstream handle);
Checker& checker();

// The races the checker found between device work, written with both items' stacks.
void write_races() {
  std::vector<Finding> races = checker().take_races();
  if (!races.empty()) injection().writer.races(std::move(races));
}

// Whether work enqueued on the stream now is run, or recorded into a graph being built (a capture).
bool capturing(CUstream handle) { return injection().captures_open.load() > 0 && capture_graph(handle).has_value(); }

void issue(const char* api, CUstream handle, StreamKey stream, CopyEnd src, CopyEnd dst, std::size_t bytes,
           bool graph_node = false, bool graph_has_host_nodes = false, std::vector<DeviceRange> device = {},
           std::string_view kernel = {}) {
  Injection& in = injection();
  const bool holds = src.kind == MemoryKind::PinnedHost || dst.kind == MemoryKind::PinnedHost;
  if (holds && !graph_node) {
    if (const std::optional<CUgraph> graph = capture_graph(handle)) {
      // Recorded into a graph being built, not issued: each launch of the graph issues it.
      if (*graph != nullptr) {
        std::lock_guard lock(in.mutex);
        in.graph_copies[*graph].push_back(Injection::GraphCopy{api, src, dst, bytes});
      } else if (in.captured_copies++ == 0) {
        // Said at once, so that a process that never reaches its exit handlers still says it.
        in.writer.note("a copy was issued into a stream capture whose graph the driver did not name: launches of "
                       "that graph are not watched");
      }
      return;
    }
  }
  // A handler the program put in front of the checker's while no page was held hid nothing: it goes behind,
  // and the run can still be clean.
  if (holds && FaultHandler::ensure_installed_at_copy() == FaultHandler::HandlerAtCopy::ReplacedWhilePagesWereHeld &&
      !in.handler_replaced.exchange(true))
    in.writer.note("the program replaced the SIGSEGV handler around the C library while the checker held pages; the "
                   "checker put its own back in front and passes the program's handler every fault that is not the "
                   "checker's (accesses while it was replaced were not watched)");
  // A graph's nodes and work recorded into a capture touch device memory when a launch runs them, which the
  // device's half does not follow yet. A copy with a pinned end was asked above, and returned if it was captured:
  // the driver is asked once.
  if (graph_node || (!holds && capturing(handle))) device.clear();
  in.checker.copy_async(
      AsyncCopy{api, stream, src, dst, bytes, 0, graph_node, graph_has_host_nodes, std::move(device), kernel},
      [] { return capture_site(); });
  write_races();
  if (in.protector.failed() && !in.said_protection.exchange(true))
    in.writer.note("page protection failed, so some owned bytes were not watched: " +
                   in.protector.first_failure().value_or("?"));
}

// The graph a stream is capturing into, or nothing when it is not capturing.
std::optional<CUgraph> capture_graph(CUstream handle) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUgraph graph = nullptr;
  const OurCall ours;
  const CUresult r = cuStreamGetCaptureInfo(handle, &status, nullptr, &graph, nullptr, nullptr, nullptr);
  if (r != CUDA_SUCCESS || status == CU_STREAM_CAPTURE_STATUS_NONE) return std::nullopt;
  return graph;
}

std::pair<CopyEnd, CopyEnd> ends_of(const CUDA_MEMCPY3D& c) {
  const CopyEnd src = end_of(c.srcMemoryType, c.srcHost, c.srcDevice, c.srcXInBytes, c.srcY, c.srcZ, c.srcPitch,
                             c.srcHeight, c.WidthInBytes, c.Height, c.Depth == 0 ? 1 : c.Depth);
  const CopyEnd dst = end_of(c.dstMemoryType, c.dstHost, c.dstDevice, c.dstXInBytes, c.dstY, c.dstZ, c.dstPitch,
                             c.dstHeight, c.WidthInBytes, c.Height, c.Depth == 0 ? 1 : c.Depth);
  return {src, dst};
}

void copy3d(const char* api, const CUDA_MEMCPY3D& c, CUstream handle, StreamKey stream, bool graph_node) {
  const CopyEnd src = end_of(c.srcMemoryType, c.srcHost, c.srcDevice, c.srcXInBytes, c.srcY, c.srcZ, c.srcPitch,
                             c.srcHeight, c.WidthInBytes, c.Height, c.Depth == 0 ? 1 : c.Depth);
  const CopyEnd dst = end_of(c.dstMemoryType, c.dstHost, c.dstDevice, c.dstXInBytes, c.dstY, c.dstZ, c.dstPitch,
                             c.dstHeight, c.WidthInBytes, c.Height, c.Depth == 0 ? 1 : c.Depth);
  std::vector<DeviceRange> device;
  const std::size_t depth = c.Depth == 0 ? 1 : c.Depth;
  add_copy_end_ranges(c.srcMemoryType, c.srcDevice, c.srcXInBytes, c.srcY, c.srcZ, c.srcPitch, c.srcHeight,
                      c.WidthInBytes, c.Height, depth, DeviceAccessKind::Read, device);
  add_copy_end_ranges(c.dstMemoryType, c.dstDevice, c.dstXInBytes, c.dstY, c.dstZ, c.dstPitch, c.dstHeight,
                      c.WidthInBytes, c.Height, depth, DeviceAccessKind::Write, device);
  issue(api, handle, stream, src, dst, c.WidthInBytes * c.Height * depth, graph_node, false, std::move(device));
}

struct HostFunctionMarker {
  WorkStamp item;
};
// Queued just ahead of each of the program's host functions (and stream callbacks): when it runs, everything
// before the program's function on its stream has run, and the host may rely on that from then on.
void CUDA_CB host_function_starts(void* data) {
  auto* start = static_cast<HostFunctionMarker*>(data);
  FaultHandler::mark_host_function_thread();
  try {
    injection().checker.host_function_started(start->item);
  } catch (const std::exception& e) {
    stop_watching(std::string("a host function's start: ") + e.what());
  }
  delete start;
}
// Queued just behind each of the program's host functions.
void CUDA_CB host_function_ends(void* data) {
  auto* end = static_cast<HostFunctionMarker*>(data);
  try {
    injection().checker.host_function_returned(end->item);
  } catch (const std::exception& e) {
    stop_watching(std::string("a host function's return: ") + e.what());
  }
  delete end;
}
// The host function whose start marker this thread just queued, until its call returns.
thread_local std::optional<WorkStamp> host_function_being_queued;

// cuLaunchHostFunc or cuStreamAddCallback, at its entry: a start marker ahead of the program's function. In a
// stream capture the function becomes a host node of the graph being built, run at each launch of it: no
// marker goes into the program's graph (it would change the graph, and run once per launch).
void host_function_entering(CUstream handle, StreamKey stream) {
  Injection& in = injection();
  if (const std::optional<CUgraph> graph = capture_graph(handle)) {
    std::lock_guard lock(in.mutex);
    in.graphs_with_host_nodes.insert(*graph);
    return;
  }
  auto* start = new HostFunctionMarker{in.checker.host_function_enqueued(stream)};
  host_function_being_queued = start->item;
  const OurCall ours;
  if (cuLaunchHostFunc(handle, host_function_starts, start) != CUDA_SUCCESS) delete start;
}

// At its exit: an end marker behind it, so that the checker knows when it has returned.
void host_function_queued(CUstream handle) {
  if (!host_function_being_queued) return;
  auto* end = new HostFunctionMarker{*host_function_being_queued};
  host_function_being_queued.reset();
  const OurCall ours;
  if (cuLaunchHostFunc(handle, host_function_ends, end) != CUDA_SUCCESS) delete end;
}

// Queued ahead of the launch of a graph that has host nodes: it runs on the thread the driver runs host
// functions on, which then runs the graph's host nodes, so that their accesses are judged as host functions'.
void CUDA_CB host_function_thread_marker(void*) { FaultHandler::mark_host_function_thread(); }

void graph_launch_entering(CUgraphExec exec, CUstream handle) {
  Injection& in = injection();
  {
    std::lock_guard lock(in.mutex);
    const auto e = in.executables.find(exec);
    if (e == in.executables.end() || !in.graphs_with_host_nodes.count(e->second)) return;
  }
  if (capture_graph(handle)) return;  // launched into a capture: it becomes a node, the marker would too
  const OurCall ours;
  cuLaunchHostFunc(handle, host_function_thread_marker, nullptr);
}

void graph_host_node_added(CUgraph graph) {
  Injection& in = injection();
  std::lock_guard lock(in.mutex);
  in.graphs_with_host_nodes.insert(graph);
}

void graph_memcpy_node_added(CUgraph graph, const CUDA_MEMCPY3D& m, const char* api) {
  const auto [src, dst] = ends_of(m);
  if (src.kind != MemoryKind::PinnedHost && dst.kind != MemoryKind::PinnedHost) return;
  Injection& in = injection();
  std::lock_guard lock(in.mutex);
  in.graph_copies[graph].push_back(Injection::GraphCopy{api, src, dst, m.WidthInBytes * m.Height * (m.Depth ? m.Depth : 1)});
}

// ---- One driver call, as a handler sees it ------------------------------------------------------------------

struct Call {
  const CUpti_CallbackData* d;
  CUpti_CallbackId cbid;
  bool per_thread;  // the _ptsz / _ptds form: a null stream is the calling thread's default stream

  template <class Params>
  const Params& params() const { return *static_cast<const Params*>(d->functionParams); }
  StreamKey stream(CUstream handle) const { return stream_key(handle, d, per_thread); }
  std::uint64_t context() const { return key_of(current_context(d)); }
  std::string_view name() const { return d->functionName != nullptr ? d->functionName : ""; }
};
using Handler = void (*)(const Call&);
#define PARAMS(type) c.params<type##_params>()

Checker& checker() { return injection().checker; }
std::uint64_t thread_id() { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

// ---- Handlers: at the call's entry (frees, while the memory exists; host functions, to queue the start
// marker ahead), or at its exit, when it succeeded (what it made or enqueued now exists) ----------------------

void pinned_released(const Call& c) {
  const bool unregister = c.cbid == CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister;
  const void* p = unregister ? PARAMS(cuMemHostUnregister).p : PARAMS(cuMemFreeHost).p;
  const std::vector<Finding> found =
      checker().pinned_released(reinterpret_cast<std::uintptr_t>(p), unregister, capture_site(), thread_id());
  // The memory is no longer the device's to reach: what a later allocation at the same address holds is other
  // memory. (A free while work may still use it is the host's half: free-while-in-flight, found above.)
  const auto base = reinterpret_cast<std::uintptr_t>(p);
  if (const std::size_t bytes = device_released(base)) checker().device_memory_renewed(base, base + bytes);
  if (!found.empty()) injection().writer.findings(found, {}, {}, false);
}

void launch_host_func_entering(const Call& c) {
  host_function_entering(PARAMS(cuLaunchHostFunc).hStream, c.stream(PARAMS(cuLaunchHostFunc).hStream));
}
void launch_host_func_queued(const Call& c) { host_function_queued(PARAMS(cuLaunchHostFunc).hStream); }
void stream_callback_entering(const Call& c) {
  host_function_entering(PARAMS(cuStreamAddCallback).hStream, c.stream(PARAMS(cuStreamAddCallback).hStream));
}
void stream_callback_queued(const Call& c) { host_function_queued(PARAMS(cuStreamAddCallback).hStream); }

// Pinned memory is also looked up by launches: with unified addressing a kernel reaches it at its host address
// (mapped pinned memory; registered memory where the device can use the host pointer, as on every GPU this
// project was measured on).
void pinned_allocated(const void* p, std::size_t bytes, PinnedKind kind) {
  checker().pinned_allocated(reinterpret_cast<std::uintptr_t>(p), bytes, kind);
  device_allocated(reinterpret_cast<std::uintptr_t>(p), bytes);
}
void host_alloc(const Call& c) {
  const auto& p = PARAMS(cuMemHostAlloc);
  pinned_allocated(*p.pp, p.bytesize,
                   (p.Flags & CU_MEMHOSTALLOC_WRITECOMBINED) ? PinnedKind::WriteCombined : PinnedKind::HostAlloc);
}
void alloc_host(const Call& c) {
  pinned_allocated(*PARAMS(cuMemAllocHost_v2).pp, PARAMS(cuMemAllocHost_v2).bytesize, PinnedKind::HostAlloc);
}
void host_register(const Call& c) {
  pinned_allocated(PARAMS(cuMemHostRegister_v2).p, PARAMS(cuMemHostRegister_v2).bytesize, PinnedKind::Registered);
}

void stream_created(const Call& c) {
  const bool priority = c.cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority;
  const CUstream s = priority ? *PARAMS(cuStreamCreateWithPriority).phStream : *PARAMS(cuStreamCreate).phStream;
  const unsigned flags = priority ? PARAMS(cuStreamCreateWithPriority).flags : PARAMS(cuStreamCreate).Flags;
  const StreamKey key{c.context(), reinterpret_cast<std::uint64_t>(s)};
  {
    std::lock_guard lock(injection().mutex);
    injection().streams[s] = key;
  }
  checker().stream_created(key, (flags & CU_STREAM_NON_BLOCKING) ? StreamKind::NonBlocking : StreamKind::Blocking);
}
void stream_destroyed(const Call& c) {
  std::lock_guard lock(injection().mutex);
  injection().streams.erase(PARAMS(cuStreamDestroy_v2).hStream);
}

void event_created(const Call& c) { checker().event_created(reinterpret_cast<std::uint64_t>(*PARAMS(cuEventCreate).phEvent)); }
void event_recorded(const Call& c) {
  // cuEventRecord and cuEventRecordWithFlags: the same first two fields.
  checker().event_recorded(reinterpret_cast<std::uint64_t>(PARAMS(cuEventRecord).hEvent), c.stream(PARAMS(cuEventRecord).hStream));
}
void stream_waited_event(const Call& c) {
  checker().stream_waited_event(c.stream(PARAMS(cuStreamWaitEvent).hStream),
                                reinterpret_cast<std::uint64_t>(PARAMS(cuStreamWaitEvent).hEvent));
}
// cuEventQuery and cuStreamQuery reach their exit handlers only with CUDA_SUCCESS: the work is done, as after
// a synchronize (rule 4).
void event_synchronized(const Call& c) {
  checker().event_synchronized(reinterpret_cast<std::uint64_t>(c.cbid == CUPTI_DRIVER_TRACE_CBID_cuEventQuery
                                                                   ? PARAMS(cuEventQuery).hEvent
                                                                   : PARAMS(cuEventSynchronize).hEvent));
}
void stream_synchronized(const Call& c) {
  // cuStreamSynchronize and cuStreamQuery: the stream is the only field.
  checker().stream_synchronized(c.stream(PARAMS(cuStreamSynchronize).hStream));
}
void context_synchronized(const Call& c) {
  CUcontext ctx = nullptr;
  if (c.cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2) ctx = PARAMS(cuCtxSynchronize_v2).ctx;
  checker().context_synchronized(ctx != nullptr ? key_of(ctx) : c.context());
}

void copy_h2d_async(const Call& c) {
  const auto& p = PARAMS(cuMemcpyHtoDAsync_v2);
  std::vector<DeviceRange> device;
  add_range(p.dstDevice, p.ByteCount, DeviceAccessKind::Write, device);
  issue("cuMemcpyHtoDAsync", p.hStream, c.stream(p.hStream),
        {host_kind(p.srcHost), HostFootprint::linear(reinterpret_cast<std::uintptr_t>(p.srcHost), p.ByteCount)},
        {MemoryKind::Device, {}}, p.ByteCount, false, false, std::move(device));
}
void copy_d2h_async(const Call& c) {
  const auto& p = PARAMS(cuMemcpyDtoHAsync_v2);
  std::vector<DeviceRange> device;
  add_range(p.srcDevice, p.ByteCount, DeviceAccessKind::Read, device);
  issue("cuMemcpyDtoHAsync", p.hStream, c.stream(p.hStream), {MemoryKind::Device, {}},
        {host_kind(p.dstHost), HostFootprint::linear(reinterpret_cast<std::uintptr_t>(p.dstHost), p.ByteCount)},
        p.ByteCount, false, false, std::move(device));
}
void copy_async(const Call& c) {
  const auto& p = PARAMS(cuMemcpyAsync);
  const MemoryKind src = kind_of(p.src), dst = kind_of(p.dst);
  std::vector<DeviceRange> device;
  auto on_device = [](MemoryKind k) { return k == MemoryKind::Device || k == MemoryKind::Managed; };
  if (on_device(src)) add_range(p.src, p.ByteCount, DeviceAccessKind::Read, device);
  if (on_device(dst)) add_range(p.dst, p.ByteCount, DeviceAccessKind::Write, device);
  issue("cuMemcpyAsync", p.hStream, c.stream(p.hStream), {src, HostFootprint::linear(p.src, p.ByteCount)},
        {dst, HostFootprint::linear(p.dst, p.ByteCount)}, p.ByteCount, false, false, std::move(device));
}
void copy_2d_async(const Call& c) {
  const CUDA_MEMCPY2D& m = *PARAMS(cuMemcpy2DAsync_v2).pCopy;
  CUDA_MEMCPY3D c3{};
  c3.srcXInBytes = m.srcXInBytes, c3.srcY = m.srcY, c3.srcMemoryType = m.srcMemoryType, c3.srcHost = m.srcHost;
  c3.srcDevice = m.srcDevice, c3.srcPitch = m.srcPitch, c3.dstXInBytes = m.dstXInBytes, c3.dstY = m.dstY;
  c3.dstMemoryType = m.dstMemoryType, c3.dstHost = m.dstHost, c3.dstDevice = m.dstDevice, c3.dstPitch = m.dstPitch;
  c3.WidthInBytes = m.WidthInBytes, c3.Height = m.Height, c3.Depth = 1;
  copy3d("cuMemcpy2DAsync", c3, PARAMS(cuMemcpy2DAsync_v2).hStream, c.stream(PARAMS(cuMemcpy2DAsync_v2).hStream), false);
}
void copy_3d_async(const Call& c) {
  copy3d("cuMemcpy3DAsync", *PARAMS(cuMemcpy3DAsync_v2).pCopy, PARAMS(cuMemcpy3DAsync_v2).hStream,
         c.stream(PARAMS(cuMemcpy3DAsync_v2).hStream), false);
}
void memset_async(const Call& c) {
  // D8, D16 and D32: the same first three fields; a memset of pinned host memory writes it on the stream.
  const auto& p = PARAMS(cuMemsetD8Async);
  const std::size_t unit = c.name().starts_with("cuMemsetD8") ? 1 : c.name().starts_with("cuMemsetD16") ? 2 : 4;
  if (checker().pinned_kind(p.dstDevice)) {
    issue("cuMemsetAsync", p.hStream, c.stream(p.hStream), {MemoryKind::Device, {}},
          {MemoryKind::PinnedHost, HostFootprint::linear(p.dstDevice, p.N * unit)}, p.N * unit);
    return;
  }
  std::vector<DeviceRange> ranges;
  if (!capturing(p.hStream)) add_range(p.dstDevice, p.N * unit, DeviceAccessKind::Write, ranges);
  checker().device_work(c.stream(p.hStream), DeviceWorkItem{"cuMemsetAsync", DeviceWorkKind::Memset, std::move(ranges)},
                        [] { return capture_site(); });
  write_races();
}
void memset_2d_async(const Call& c) {
  // D2D8, D2D16 and D2D32: the same fields but the value's type, which comes after the pitch.
  const auto& p = PARAMS(cuMemsetD2D8Async);
  const std::size_t unit = c.name().starts_with("cuMemsetD2D8") ? 1 : c.name().starts_with("cuMemsetD2D16") ? 2 : 4;
  std::vector<DeviceRange> ranges;
  if (!capturing(p.hStream))
    add_copy_end_ranges(CU_MEMORYTYPE_DEVICE, p.dstDevice, 0, 0, 0, p.dstPitch, p.Height, p.Width * unit, p.Height, 1,
                        DeviceAccessKind::Write, ranges);
  checker().device_work(c.stream(p.hStream), DeviceWorkItem{"cuMemset2DAsync", DeviceWorkKind::Memset, std::move(ranges)},
                        [] { return capture_site(); });
  write_races();
}
// A device-to-device copy (within a device or between two): it reads its source and writes its destination.
void copy_d2d_async(const Call& c) {
  const bool peer = c.cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync ||
                    c.cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz;
  const CUdeviceptr src = peer ? PARAMS(cuMemcpyPeerAsync).srcDevice : PARAMS(cuMemcpyDtoDAsync_v2).srcDevice;
  const CUdeviceptr dst = peer ? PARAMS(cuMemcpyPeerAsync).dstDevice : PARAMS(cuMemcpyDtoDAsync_v2).dstDevice;
  const std::size_t bytes = peer ? PARAMS(cuMemcpyPeerAsync).ByteCount : PARAMS(cuMemcpyDtoDAsync_v2).ByteCount;
  const CUstream handle = peer ? PARAMS(cuMemcpyPeerAsync).hStream : PARAMS(cuMemcpyDtoDAsync_v2).hStream;
  std::vector<DeviceRange> device;
  add_range(src, bytes, DeviceAccessKind::Read, device);
  add_range(dst, bytes, DeviceAccessKind::Write, device);
  issue(peer ? "cuMemcpyPeerAsync" : "cuMemcpyDtoDAsync", handle, c.stream(handle), {MemoryKind::Device, {}},
        {MemoryKind::Device, {}}, bytes, false, false, std::move(device));
}

// `--kernels-own-mapped-memory`: each pointer argument into pinned host memory is held as a copy's host end is
// (the bytes it points to: a kernel's extent is not known): what the kernel reads, the host may not write; what
// it may write, the host may neither read nor write, until the host knows the kernel finished.
void hold_pinned_arguments(CUstream handle, StreamKey stream, const LaunchAccesses& launch) {
  for (const DeviceRange& r : launch.ranges) {
    if (!checker().pinned_kind(r.begin)) continue;
    const CopyEnd host{MemoryKind::PinnedHost, HostFootprint::linear(r.begin, r.end - r.begin)};
    const CopyEnd device{MemoryKind::Device, {}};
    const bool reads = r.kind == DeviceAccessKind::Read;
    issue("cuLaunchKernel", handle, stream, reads ? host : device, reads ? device : host, r.end - r.begin, false,
          false, {}, launch.kernel);
  }
}

// A kernel launch: what its arguments point to, by the parameter layout the driver gives.
void kernel_launched(const Call& c) {
  CUstream s = nullptr;
  CUfunction f = nullptr;
  void** params = nullptr;
  void** extra = nullptr;
  switch (c.cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto& p = PARAMS(cuLaunchKernelEx);
      s = p.config->hStream, f = p.f, params = p.kernelParams, extra = p.extra;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      const auto& p = PARAMS(cuLaunchCooperativeKernel);
      s = p.hStream, f = p.f, params = p.kernelParams;
      break;
    }
    default: {
      const auto& p = PARAMS(cuLaunchKernel);
      s = p.hStream, f = p.f, params = p.kernelParams, extra = p.extra;
      break;
    }
  }
  const StreamKey stream = c.stream(s);
  if (capturing(s)) {
    checker().work_enqueued(stream);
    return;
  }
  LaunchAccesses launch = launch_accesses(f, c.d->symbolName, params, extra);
  Injection& in = injection();
  if (!launch.layout_known && in.launches_without_layout++ == 0)
    in.writer.note("the driver could not list the parameters of kernel " + std::string(launch.kernel) +
                   ": what its launches touch on the device was not watched");
  if (in.kernels_own_mapped_memory) hold_pinned_arguments(s, stream, launch);
  checker().device_work(stream, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel, std::move(launch.ranges),
                                               launch.kernel},
                        [] { return capture_site(); });
  write_races();
}

// ---- Device memory: allocations are looked up by launches; frees end what touched them -----------------------

void device_alloc(const Call& c) {
  switch (c.cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2:
      return device_allocated(*PARAMS(cuMemAllocPitch_v2).dptr,
                              *PARAMS(cuMemAllocPitch_v2).pPitch * PARAMS(cuMemAllocPitch_v2).Height);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
      return device_allocated(*PARAMS(cuMemAllocManaged).dptr, PARAMS(cuMemAllocManaged).bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: return device_allocated(PARAMS(cuMemMap).ptr, PARAMS(cuMemMap).size);
    default: return device_allocated(*PARAMS(cuMemAlloc_v2).dptr, PARAMS(cuMemAlloc_v2).bytesize);
  }
}
// A stream-ordered pool's block: the pool orders its new owner after the free that returned it.
void device_alloc_async(const Call& c) {
  const bool from_pool = c.name().starts_with("cuMemAllocFromPoolAsync");
  const CUdeviceptr base = from_pool ? *PARAMS(cuMemAllocFromPoolAsync).dptr : *PARAMS(cuMemAllocAsync).dptr;
  const std::size_t bytes = from_pool ? PARAMS(cuMemAllocFromPoolAsync).bytesize : PARAMS(cuMemAllocAsync).bytesize;
  device_allocated(base, bytes);
  checker().device_memory_renewed(base, base + bytes);
}
// cuMemFree waits for the device: nothing that touched the memory can race with what comes after.
void device_free(const Call& c) {
  const CUdeviceptr base = PARAMS(cuMemFree_v2).dptr;
  if (const std::size_t bytes = device_released(base)) checker().device_memory_renewed(base, base + bytes);
}
void device_unmap(const Call& c) {
  const CUdeviceptr base = PARAMS(cuMemUnmap).ptr;
  device_released(base);
  checker().device_memory_renewed(base, base + PARAMS(cuMemUnmap).size);
}
// cudaFreeAsync: the block is the pool's again once the free runs, so the free writes all of it on its stream.
void device_free_async(const Call& c) {
  const auto& p = PARAMS(cuMemFreeAsync);
  std::vector<DeviceRange> ranges;
  if (const std::size_t bytes = device_released(p.dptr); bytes > 0 && !capturing(p.hStream))
    add_range(p.dptr, bytes, DeviceAccessKind::Write, ranges);
  checker().device_work(c.stream(p.hStream), DeviceWorkItem{"cuMemFreeAsync", DeviceWorkKind::FreeAsync, std::move(ranges)},
                        [] { return capture_site(); });
  write_races();
}
void capture_begun(const Call&) { ++injection().captures_open; }
void capture_ended(const Call&) { --injection().captures_open; }

// Synchronous copies (rule 8): what the host waits for depends on the kinds of their two ends.
void copy_sync_h2d(const Call& c) { checker().copy_sync(c.context(), host_kind(PARAMS(cuMemcpyHtoD_v2).srcHost), MemoryKind::Device); }
void copy_sync_d2h(const Call& c) { checker().copy_sync(c.context(), MemoryKind::Device, host_kind(PARAMS(cuMemcpyDtoH_v2).dstHost)); }
void copy_sync_d2d(const Call& c) { checker().copy_sync(c.context(), MemoryKind::Device, MemoryKind::Device); }
void copy_sync(const Call& c) { checker().copy_sync(c.context(), kind_of(PARAMS(cuMemcpy).src), kind_of(PARAMS(cuMemcpy).dst)); }
void copy_sync_2d(const Call& c) {
  // cuMemcpy2D and cuMemcpy2DUnaligned: the same one field.
  const CUDA_MEMCPY2D& m = *PARAMS(cuMemcpy2D_v2).pCopy;
  checker().copy_sync(c.context(), kind_of_end(m.srcMemoryType, m.srcHost, m.srcDevice),
                      kind_of_end(m.dstMemoryType, m.dstHost, m.dstDevice));
}
void copy_sync_3d(const Call& c) {
  const CUDA_MEMCPY3D& m = *PARAMS(cuMemcpy3D_v2).pCopy;
  checker().copy_sync(c.context(), kind_of_end(m.srcMemoryType, m.srcHost, m.srcDevice),
                      kind_of_end(m.dstMemoryType, m.dstHost, m.dstDevice));
}

void graph_memcpy_node(const Call& c) {
  graph_memcpy_node_added(PARAMS(cuGraphAddMemcpyNode).hGraph, *PARAMS(cuGraphAddMemcpyNode).copyParams,
                          "cudaGraphAddMemcpyNode");
}
void graph_host_node(const Call& c) { graph_host_node_added(PARAMS(cuGraphAddHostNode).hGraph); }
void graph_node(const Call& c) {
  // cuGraphAddNode and its _v2: the same graph and node parameters.
  const CUgraph graph = PARAMS(cuGraphAddNode).hGraph;
  const CUgraphNodeParams& node = c.cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode ? *PARAMS(cuGraphAddNode).nodeParams
                                                                                 : *PARAMS(cuGraphAddNode_v2).nodeParams;
  if (node.type == CU_GRAPH_NODE_TYPE_HOST) graph_host_node_added(graph);
  if (node.type == CU_GRAPH_NODE_TYPE_MEMCPY) graph_memcpy_node_added(graph, node.memcpy.copyParams, "cuGraphAddNode");
}
void graph_cloned(const Call& c) {
  // A clone launches the same copies and host nodes as its original.
  Injection& in = injection();
  std::lock_guard lock(in.mutex);
  const CUgraph original = PARAMS(cuGraphClone).originalGraph, clone = *PARAMS(cuGraphClone).phGraphClone;
  if (auto g = in.graph_copies.find(original); g != in.graph_copies.end()) in.graph_copies[clone] = g->second;
  if (in.graphs_with_host_nodes.count(original)) in.graphs_with_host_nodes.insert(clone);
}
void graph_instantiated(const Call& c) {
  Injection& in = injection();
  std::lock_guard lock(in.mutex);
  if (c.cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags)
    in.executables[*PARAMS(cuGraphInstantiateWithFlags).phGraphExec] = PARAMS(cuGraphInstantiateWithFlags).hGraph;
  else
    in.executables[*PARAMS(cuGraphInstantiateWithParams).phGraphExec] = PARAMS(cuGraphInstantiateWithParams).hGraph;
}
void graph_launch_entering_call(const Call& c) { graph_launch_entering(PARAMS(cuGraphLaunch).hGraph, PARAMS(cuGraphLaunch).hStream); }
void graph_launched(const Call& c) {
  Injection& in = injection();
  const StreamKey s = c.stream(PARAMS(cuGraphLaunch).hStream);
  std::vector<Injection::GraphCopy> copies;
  bool host_nodes = false;
  {
    std::lock_guard lock(in.mutex);
    if (auto e = in.executables.find(PARAMS(cuGraphLaunch).hGraph); e != in.executables.end()) {
      if (auto g = in.graph_copies.find(e->second); g != in.graph_copies.end()) copies = g->second;
      host_nodes = in.graphs_with_host_nodes.count(e->second) != 0;
    }
  }
  // A graph's memcpy nodes read and write their host buffers when the launch runs, by reference.
  for (const Injection::GraphCopy& g : copies)
    issue(("cuGraphLaunch of " + g.api).c_str(), PARAMS(cuGraphLaunch).hStream, s, g.src, g.dst, g.bytes, true,
          host_nodes);
  if (copies.empty()) checker().work_enqueued(s);
}
void batch_copy(const Call&) {
  Injection& in = injection();
  if (in.batch_copies++ == 0) in.writer.note("cuMemcpyBatchAsync was called: its copies are not watched");
}

// ---- The one table of the driver calls the checker watches: both the dispatch and the list CUPTI enables ---

enum class Exit { WhenSucceeded, Always };
struct Watched {
  std::vector<CUpti_CallbackId> ids;
  Handler on_entry = nullptr;
  Handler on_exit = nullptr;
  Exit exit = Exit::WhenSucceeded;
};

#define ID(name) CUPTI_DRIVER_TRACE_CBID_##name
#define PTSZ(name) ID(name), ID(name##_ptsz)  // the call and its per-thread default stream form
#define PTDS(name) ID(name), ID(name##_ptds)

const std::vector<Watched>& watched_table() {
  static const std::vector<Watched> table{
      {{ID(cuMemFreeHost), ID(cuMemHostUnregister)}, pinned_released},
      {{PTSZ(cuLaunchHostFunc)}, launch_host_func_entering, launch_host_func_queued, Exit::Always},
      {{PTSZ(cuStreamAddCallback)}, stream_callback_entering, stream_callback_queued, Exit::Always},
      {{PTSZ(cuGraphLaunch)}, graph_launch_entering_call, graph_launched},
      {{ID(cuMemHostAlloc)}, nullptr, host_alloc},
      {{ID(cuMemAllocHost_v2)}, nullptr, alloc_host},
      {{ID(cuMemHostRegister_v2)}, nullptr, host_register},
      {{ID(cuStreamCreate), ID(cuStreamCreateWithPriority)}, nullptr, stream_created},
      {{ID(cuStreamDestroy_v2)}, nullptr, stream_destroyed},
      {{ID(cuEventCreate)}, nullptr, event_created},
      {{PTSZ(cuEventRecord), PTSZ(cuEventRecordWithFlags)}, nullptr, event_recorded},
      {{PTSZ(cuStreamWaitEvent)}, nullptr, stream_waited_event},
      {{ID(cuEventSynchronize), ID(cuEventQuery)}, nullptr, event_synchronized},
      {{PTSZ(cuStreamSynchronize), PTSZ(cuStreamQuery)}, nullptr, stream_synchronized},
      {{ID(cuCtxSynchronize), ID(cuCtxSynchronize_v2)}, nullptr, context_synchronized},
      {{PTSZ(cuMemcpyHtoDAsync_v2)}, nullptr, copy_h2d_async},
      {{PTSZ(cuMemcpyDtoHAsync_v2)}, nullptr, copy_d2h_async},
      {{PTSZ(cuMemcpyAsync)}, nullptr, copy_async},
      {{PTSZ(cuMemcpy2DAsync_v2)}, nullptr, copy_2d_async},
      {{PTSZ(cuMemcpy3DAsync_v2)}, nullptr, copy_3d_async},
      {{PTSZ(cuMemsetD8Async), PTSZ(cuMemsetD16Async), PTSZ(cuMemsetD32Async)}, nullptr, memset_async},
      {{PTSZ(cuMemsetD2D8Async), PTSZ(cuMemsetD2D16Async), PTSZ(cuMemsetD2D32Async)}, nullptr, memset_2d_async},
      {{PTSZ(cuMemcpyDtoDAsync_v2), PTSZ(cuMemcpyPeerAsync)}, nullptr, copy_d2d_async},
      {{PTSZ(cuLaunchKernel), PTSZ(cuLaunchCooperativeKernel), PTSZ(cuLaunchKernelEx)}, nullptr, kernel_launched},
      {{ID(cuMemAlloc_v2), ID(cuMemAllocPitch_v2), ID(cuMemAllocManaged), ID(cuMemMap)}, nullptr, device_alloc},
      {{PTSZ(cuMemAllocAsync), PTSZ(cuMemAllocFromPoolAsync)}, nullptr, device_alloc_async},
      {{ID(cuMemFree_v2)}, device_free},
      {{ID(cuMemUnmap)}, device_unmap},
      {{PTSZ(cuMemFreeAsync)}, nullptr, device_free_async},
      {{PTSZ(cuStreamBeginCapture), PTSZ(cuStreamBeginCapture_v2), PTSZ(cuStreamBeginCaptureToGraph)}, nullptr,
       capture_begun},
      {{PTSZ(cuStreamEndCapture)}, nullptr, capture_ended},
      {{PTDS(cuMemcpyHtoD_v2)}, nullptr, copy_sync_h2d},
      {{PTDS(cuMemcpyDtoH_v2)}, nullptr, copy_sync_d2h},
      {{PTDS(cuMemcpyDtoD_v2)}, nullptr, copy_sync_d2d},
      {{PTDS(cuMemcpy)}, nullptr, copy_sync},
      {{PTDS(cuMemcpy2D_v2), ID(cuMemcpy2DUnaligned_v2)}, nullptr, copy_sync_2d},
      {{PTDS(cuMemcpy3D_v2)}, nullptr, copy_sync_3d},
      {{ID(cuGraphAddMemcpyNode)}, nullptr, graph_memcpy_node},
      {{ID(cuGraphAddHostNode)}, nullptr, graph_host_node},
      {{ID(cuGraphAddNode), ID(cuGraphAddNode_v2)}, nullptr, graph_node},
      {{ID(cuGraphClone)}, nullptr, graph_cloned},
      {{ID(cuGraphInstantiateWithFlags), PTSZ(cuGraphInstantiateWithParams)}, nullptr, graph_instantiated},
      {{PTSZ(cuMemcpyBatchAsync), PTSZ(cuMemcpyBatchAsync_v2)}, nullptr, batch_copy},
  };
  return table;
}

// The table by callback id, for a lookup per call.
const std::vector<const Watched*>& by_callback_id() {
  static const std::vector<const Watched*> index = [] {
    std::vector<const Watched*> out(CUPTI_DRIVER_TRACE_CBID_SIZE, nullptr);
    for (const Watched& w : watched_table())
      for (CUpti_CallbackId id : w.ids) out.at(id) = &w;
    return out;
  }();
  return index;
}

bool succeeded(const CUpti_CallbackData* d) {
  return d->functionReturnValue != nullptr && *static_cast<const CUresult*>(d->functionReturnValue) == CUDA_SUCCESS;
}

}  // namespace

void CUPTIAPI on_driver_call(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  Injection& in = injection();
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || inside_our_call || in.disabled) return;
  if (const char* why = FaultHandler::failure()) return stop_watching(why);
  const auto* d = static_cast<const CUpti_CallbackData*>(data);
  const bool enter = d->callbackSite == CUPTI_API_ENTER;
  FaultHandler::set_inside_cuda_call(enter);
  if (!enter) in.writer.count_driver_call();
  const Watched* w = cbid < by_callback_id().size() ? by_callback_id()[cbid] : nullptr;
  const Handler handler = w == nullptr ? nullptr : enter ? w->on_entry : w->on_exit;
  if (handler == nullptr || (!enter && w->exit == Exit::WhenSucceeded && !succeeded(d))) return;
  const std::string_view name = d->functionName != nullptr ? d->functionName : "";
  try {
    handler(Call{d, cbid, name.ends_with("_ptsz") || name.ends_with("_ptds")});
  } catch (const std::exception& e) {
    stop_watching(std::string("in the callback of ") + std::string(name) + ": " + e.what());
  } catch (...) {
    stop_watching(std::string("in the callback of ") + std::string(name) + ": an unknown exception");
  }
}

const std::vector<CUpti_CallbackId>& watched_calls() {
  static const std::vector<CUpti_CallbackId> ids = [] {
    std::vector<CUpti_CallbackId> out;
    for (const Watched& w : watched_table()) out.insert(out.end(), w.ids.begin(), w.ids.end());
    return out;
  }();
  return ids;
}

}  // namespace hazardlab::check::inject
