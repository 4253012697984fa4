// The one table of the driver calls the checker watches: both the dispatch of CUPTI's callback to each family's
// handler (handlers.hpp) and the list of calls CUPTI enables.
#include "checker/inject/dispatch.hpp"

#include <exception>
#include <string>
#include <string_view>

#include "checker/inject/handlers.hpp"
#include "checker/inject/reporting.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

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
      {{PTSZ(cuGraphLaunch)}, graph_launch_entering, graph_launched},
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
      {{PTSZ(cuMemPrefetchAsync), PTSZ(cuMemPrefetchAsync_v2)}, nullptr, managed_prefetched},
      {{PTSZ(cuStreamAttachMemAsync)}, nullptr, managed_attached},
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
      {{ID(cuGraphExecUpdate), ID(cuGraphExecUpdate_v2), ID(cuGraphExecKernelNodeSetParams),
        ID(cuGraphExecKernelNodeSetParams_v2), ID(cuGraphExecMemcpyNodeSetParams), ID(cuGraphExecMemsetNodeSetParams),
        ID(cuGraphExecChildGraphNodeSetParams), ID(cuGraphExecNodeSetParams), ID(cuGraphNodeSetEnabled),
        ID(cuGraphExecDestroy)},
       nullptr, graph_executable_changed},
      {{PTSZ(cuMemcpyBatchAsync), PTSZ(cuMemcpyBatchAsync_v2)}, nullptr, batch_copy},
      {{ID(cuModuleLoad), ID(cuModuleLoadData), ID(cuModuleLoadDataEx), ID(cuModuleLoadFatBinary),
        ID(cuLibraryLoadData), ID(cuLibraryLoadFromFile)},
       nullptr, module_loaded},
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
  Session& in = session();
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || this_thread().inside_our_call || in.disabled) return;
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
