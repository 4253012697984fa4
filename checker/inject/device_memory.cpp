#include "checker/inject/device_memory.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>

#include "checker/core/kernel_signature.hpp"
#include "checker/inject/driver_calls.hpp"

namespace hazardlab::check::inject {

namespace {

// Allocations change seldom and launches look them up often: readers share the lock.
struct Allocations {
  std::shared_mutex mutex;
  std::vector<DeviceAllocation> sorted;  // by base, disjoint
};
Allocations& allocations() {
  static auto* a = new Allocations;  // never destroyed: launches may come from threads during exit
  return *a;
}

struct Parameter {
  std::size_t offset = 0, size = 0;
  ArgumentAccess access = ArgumentAccess::MayWrite;
};
struct Layout {
  std::vector<Parameter> parameters;
  std::string name;
  bool known = false;
};
struct Layouts {
  std::mutex mutex;
  std::unordered_map<CUfunction, Layout> by_function;  // node-based: a Layout stays where it is
};
Layouts& layouts() {
  static auto* l = new Layouts;
  return *l;
}

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

const Layout& layout_of(CUfunction function, const char* symbol) {
  Layouts& l = layouts();
  std::lock_guard lock(l.mutex);
  auto it = l.by_function.find(function);
  if (it == l.by_function.end()) it = l.by_function.emplace(function, read_layout(function, symbol)).first;
  return it->second;
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

void device_allocated(std::uintptr_t base, std::size_t bytes) {
  if (bytes == 0) return;
  Allocations& a = allocations();
  std::unique_lock lock(a.mutex);
  auto at = std::lower_bound(a.sorted.begin(), a.sorted.end(), base,
                             [](const DeviceAllocation& d, std::uintptr_t b) { return d.base < b; });
  if (at != a.sorted.end() && at->base == base) {
    at->bytes = bytes;  // an address the driver handed out again, which the checker did not see freed
    return;
  }
  a.sorted.insert(at, DeviceAllocation{base, bytes});
}

std::size_t device_released(std::uintptr_t base) {
  Allocations& a = allocations();
  std::unique_lock lock(a.mutex);
  auto at = std::lower_bound(a.sorted.begin(), a.sorted.end(), base,
                             [](const DeviceAllocation& d, std::uintptr_t b) { return d.base < b; });
  if (at == a.sorted.end() || at->base != base) return 0;
  const std::size_t bytes = at->bytes;
  a.sorted.erase(at);
  return bytes;
}

LaunchAccesses launch_accesses(CUfunction function, const char* symbol, void** kernel_params, void** extra) {
  const Layout& layout = layout_of(function, symbol);
  LaunchAccesses out{{}, layout.name, layout.known};
  if (!layout.known || layout.parameters.empty()) return out;
  const std::span<const std::byte> packed = kernel_params == nullptr ? packed_buffer(extra) : std::span<const std::byte>();
  thread_local std::vector<KernelArgument> arguments;  // its capacity kept: a launch allocates no list of them
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
  Allocations& a = allocations();
  std::shared_lock lock(a.mutex);
  out.ranges = kernel_ranges(arguments, a.sorted);
  return out;
}

void add_range(CUdeviceptr begin, std::size_t bytes, DeviceAccessKind access, std::vector<DeviceRange>& out) {
  if (bytes > 0) out.push_back(DeviceRange{begin, begin + bytes, access});
}

void add_copy_end_ranges(CUmemorytype type, CUdeviceptr device, std::size_t x, std::size_t y, std::size_t z,
                         std::size_t pitch, std::size_t height, std::size_t width, std::size_t rows,
                         std::size_t depth, DeviceAccessKind access, std::vector<DeviceRange>& out) {
  if (type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED) return;
  if (width == 0 || rows == 0 || depth == 0) return;
  if (pitch == 0) pitch = width;
  const std::size_t slice_pitch = pitch * (height == 0 ? rows : height);
  const std::uintptr_t first = device + z * slice_pitch + y * pitch + x;
  if (pitch == width && slice_pitch == width * rows) return add_range(first, width * rows * depth, access, out);
  for (std::size_t slice = 0; slice < depth; ++slice)
    for (std::size_t row = 0; row < rows; ++row) add_range(first + slice * slice_pitch + row * pitch, width, access, out);
}

}  // namespace hazardlab::check::inject
