// Modules the program loads through the driver (`--ptx-footprints`): the PTX each carries, for the kernel catalog
// (kernel_layouts.hpp), read at the call's exit while the caller's image still exists. A fatbin, nvcc's wrapper
// around one, PTX text, or a file of these; a cubin carries no PTX. The runtime's own fatbins may be registered
// without such a call: the catalog then reads the program's objects (KernelLayouts::find_ptx).
#include "checker/inject/call.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/session.hpp"
#include "checker/ptx/fatbin.hpp"

namespace hazardlab::check::inject {

void module_loaded(const Call& c) {
  Session& in = session();
  if (!in.core.settings.ptx_footprints) return;
  switch (c.cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoad:
      return in.layouts.add_module_ptx(ptx::ptx_of_file(PARAMS(cuModuleLoad).fname));
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile:
      return in.layouts.add_module_ptx(ptx::ptx_of_file(PARAMS(cuLibraryLoadFromFile).fileName));
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData:
      return in.layouts.add_module_ptx(ptx::ptx_of_image(PARAMS(cuModuleLoadData).image));
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx:
      return in.layouts.add_module_ptx(ptx::ptx_of_image(PARAMS(cuModuleLoadDataEx).image));
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary:
      return in.layouts.add_module_ptx(ptx::ptx_of_image(PARAMS(cuModuleLoadFatBinary).fatCubin));
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData:
      return in.layouts.add_module_ptx(ptx::ptx_of_image(PARAMS(cuLibraryLoadData).code));
    default:
      return;
  }
}

}  // namespace hazardlab::check::inject
