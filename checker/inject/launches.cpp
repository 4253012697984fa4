// Kernel launches, decoded into KernelLaunched and taken at the call's exit when it succeeded: device work that
// touches what its arguments point to, by the parameter layout the driver gives, and under
// `--kernels-own-mapped-memory` a hold on each pinned byte an argument points to (KernelHold), and under
// `--managed-memory` a hold on each managed allocation an argument points into (managed_memory.cpp).
#include <string>
#include <vector>

#include "checker/inject/call.hpp"
#include "checker/inject/events.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/reporting.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

KernelLaunched decode_launch(const Call& c) {
  switch (c.cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto& p = PARAMS(cuLaunchKernelEx);
      return {p.config->hStream, {}, p.f, c.d->symbolName, p.kernelParams, p.extra,
              {{p.config->gridDimX, p.config->gridDimY, p.config->gridDimZ},
               {p.config->blockDimX, p.config->blockDimY, p.config->blockDimZ}}};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      const auto& p = PARAMS(cuLaunchCooperativeKernel);
      return {p.hStream, {}, p.f, c.d->symbolName, p.kernelParams, nullptr,
              {{p.gridDimX, p.gridDimY, p.gridDimZ}, {p.blockDimX, p.blockDimY, p.blockDimZ}}};
    }
    default: {
      const auto& p = PARAMS(cuLaunchKernel);
      return {p.hStream, {}, p.f, c.d->symbolName, p.kernelParams, p.extra,
              {{p.gridDimX, p.gridDimY, p.gridDimZ}, {p.blockDimX, p.blockDimY, p.blockDimZ}}};
    }
  }
}

// Pinned memory is looked up by launches too: with unified addressing a kernel reaches it at its host address.
void hold_pinned_arguments(const KernelLaunched& launch, const LaunchAccesses& accesses) {
  for (const DeviceRange& r : accesses.ranges)
    if (session().checker.pinned_kind(r.begin))
      take(KernelHeld{launch.handle, KernelHold{accesses.kernel, launch.stream, HostFootprint::linear(r.begin, r.end - r.begin),
                                                r.kind == DeviceAccessKind::Read ? KernelUse::Reads : KernelUse::MayWrite}});
}

void take(const KernelLaunched& launch) {
  Session& in = session();
  if (capturing(launch.handle)) {
    in.checker.work_enqueued(launch.stream);
    return;
  }
  LaunchAccesses accesses =
      in.layouts.launch_accesses(launch.function, launch.symbol, launch.params, launch.extra, in.checker.allocations(),
                                 this_thread().launch_arguments, in.core.settings.ptx_footprints ? &launch.shape : nullptr);
  if (!accesses.layout_known && in.launches_without_layout++ == 0)
    in.writer.note("the driver could not list the parameters of kernel " + std::string(accesses.kernel) +
                   ": what its launches touch on the device was not watched");
  for (const std::string& note : in.layouts.take_notes()) in.writer.note(note);
  if (in.core.settings.kernels_own_mapped_memory) hold_pinned_arguments(launch, accesses);
  if (in.core.settings.managed_memory) hold_managed_arguments(launch.handle, launch.stream, accesses);
  in.checker.device_work(launch.stream,
                         DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel, std::move(accesses.ranges),
                                        accesses.kernel, accesses.from},
                         [] { return capture_site(); });
  write_races();
}

}  // namespace

void kernel_launched(const Call& c) {
  KernelLaunched launch = decode_launch(c);
  launch.stream = c.stream(launch.handle);
  take(launch);
}

}  // namespace hazardlab::check::inject
