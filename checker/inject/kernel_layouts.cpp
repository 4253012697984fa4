#include "checker/inject/kernel_layouts.hpp"

#include <span>

#include "checker/core/kernel_signature.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

using Parameter = KernelLayouts::Parameter;
using Layout = KernelLayouts::Layout;

// The parameters the driver lists, and how it refused the index past the last (CUDA_ERROR_INVALID_VALUE:
// that was the last; anything else: the driver cannot say).
CUresult list_parameters(CUfunction function, bool as_library_kernel, std::vector<Parameter>& parameters) {
  for (std::size_t index = 0;; ++index) {
    std::size_t offset = 0, size = 0;
    const CUresult r = as_library_kernel
                           ? cuKernelGetParamInfo(reinterpret_cast<CUkernel>(function), index, &offset, &size)
                           : cuFuncGetParamInfo(function, index, &offset, &size);
    if (r != CUDA_SUCCESS) return r;
    parameters.push_back({offset, size, ArgumentAccess::MayWrite});
  }
}

// The layout the driver gives: cuFuncGetParamInfo for a function, cuKernelGetParamInfo for a library kernel (the
// runtime may launch one as a function). A function that seems to have no parameters is asked as a kernel too,
// so that a refusal of the handle is never taken for "no pointers".
Layout read_layout(CUfunction function, const char* symbol) {
  Layout layout;
  const KernelSignature signature = kernel_signature(symbol != nullptr ? symbol : "");
  layout.name = signature.name;
  const OurCall ours;
  CUresult r = list_parameters(function, false, layout.parameters);
  if (r != CUDA_ERROR_INVALID_VALUE || layout.parameters.empty()) {
    std::vector<Parameter> as_kernel;
    const CUresult k = list_parameters(function, true, as_kernel);
    if (k == CUDA_ERROR_INVALID_VALUE && (r != CUDA_ERROR_INVALID_VALUE || !as_kernel.empty())) {
      layout.parameters = std::move(as_kernel);
      r = k;
    }
  }
  layout.known = r == CUDA_ERROR_INVALID_VALUE;
  for (std::size_t i = 0; i < layout.parameters.size(); ++i)
    layout.parameters[i].access = parameter_access(signature, i, layout.parameters.size());
  return layout;
}

// The packed parameter buffer of the `extra` form, if the launch used it.
std::span<const std::byte> packed_buffer(void** extra) {
  const std::byte* buffer = nullptr;
  std::size_t size = 0;
  for (std::size_t i = 0; extra != nullptr && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = static_cast<const std::byte*>(extra[i + 1]);
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<const std::size_t*>(extra[i + 1]);
  }
  return buffer != nullptr ? std::span<const std::byte>(buffer, size) : std::span<const std::byte>();
}

}  // namespace

const Layout& KernelLayouts::layout_of(CUfunction function, const char* symbol) {
  std::lock_guard lock(mutex_);
  auto it = by_function_.find(function);
  if (it == by_function_.end()) it = by_function_.emplace(function, read_layout(function, symbol)).first;
  return it->second;
}

LaunchAccesses KernelLayouts::launch_accesses(CUfunction function, const char* symbol, void** kernel_params,
                                              void** extra, const Allocations& allocations,
                                              std::vector<KernelArgument>& arguments) {
  const Layout& layout = layout_of(function, symbol);
  LaunchAccesses out{{}, layout.name, layout.known};
  if (!layout.known || layout.parameters.empty()) return out;
  const std::span<const std::byte> packed = kernel_params == nullptr ? packed_buffer(extra) : std::span<const std::byte>();
  arguments.clear();
  for (std::size_t i = 0; i < layout.parameters.size(); ++i) {
    const Parameter& p = layout.parameters[i];
    if (p.size < sizeof(std::uintptr_t)) continue;  // too small to hold a pointer
    const std::byte* bytes = nullptr;
    if (kernel_params != nullptr) {
      bytes = static_cast<const std::byte*>(kernel_params[i]);
    } else if (p.offset + p.size <= packed.size()) {
      bytes = packed.data() + p.offset;
    }
    if (bytes != nullptr) arguments.push_back(KernelArgument{std::span<const std::byte>(bytes, p.size), p.access});
  }
  out.ranges = allocations.kernel_ranges(arguments);
  return out;
}

}  // namespace hazardlab::check::inject
