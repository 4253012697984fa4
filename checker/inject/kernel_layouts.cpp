#include "checker/inject/kernel_layouts.hpp"

#include <link.h>

#include <algorithm>
#include <utility>
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

// The files of the ELF objects the process has loaded: the program itself and its shared libraries.
std::vector<std::string> loaded_objects() {
  std::vector<std::string> files{"/proc/self/exe"};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] == '/')
          static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
        return 0;
      },
      &files);
  return files;
}

}  // namespace

void KernelLayouts::add_module_ptx(ptx::FoundPtx found) {
  std::lock_guard lock(mutex_);
  sources_.module_loads += found.texts.size();
  catalog_.add(std::move(found));
}

// A kernel's PTX among the modules loaded through the driver's calls, else among the `.nv_fatbin` sections of the
// objects loaded since the last look (a runtime may register its fatbins without a call the checker sees).
const ptx::KernelFootprint* KernelLayouts::find_ptx(const char* symbol) {
  if (symbol == nullptr || *symbol == '\0') return nullptr;
  if (const ptx::KernelFootprint* found = catalog_.find(symbol)) return found;
  bool read_more = false;
  for (const std::string& file : loaded_objects()) {
    if (std::find(objects_read_.begin(), objects_read_.end(), file) != objects_read_.end()) continue;
    objects_read_.push_back(file);
    ptx::FoundPtx found = ptx::ptx_of_fatbin(ptx::fatbin_section(file));
    sources_.object_sections += found.texts.size();
    read_more = read_more || !found.texts.empty() || found.unreadable > 0;
    catalog_.add(std::move(found));
  }
  return read_more ? catalog_.find(symbol) : nullptr;
}

const Layout& KernelLayouts::layout_of(CUfunction function, const char* symbol, bool read_ptx) {
  std::lock_guard lock(mutex_);
  auto it = by_function_.find(function);
  if (it == by_function_.end()) {
    it = by_function_.emplace(function, read_layout(function, symbol)).first;
    if (read_ptx) note_ptx(it->second, find_ptx(symbol));
  }
  return it->second;
}

std::optional<std::vector<DeviceRange>> KernelLayouts::ptx_ranges(const Layout& layout,
                                                                   std::span<const KernelArgument> arguments,
                                                                   const ptx::LaunchShape& shape) {
  std::string key(reinterpret_cast<const char*>(&shape), sizeof shape);
  std::vector<std::span<const std::byte>> words;
  words.reserve(arguments.size());
  for (const KernelArgument& a : arguments) {
    words.push_back(a.bytes);
    key.append(reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size()).push_back('\0');
  }
  {
    std::lock_guard lock(mutex_);
    if (auto it = layout.remembered.find(key); it != layout.remembered.end()) return it->second;
  }
  std::optional<std::vector<DeviceRange>> ranges = ptx::footprint_at_launch(*layout.footprint, words, shape);
  std::lock_guard lock(mutex_);
  if (layout.remembered.size() < kRemembered) layout.remembered.emplace(std::move(key), ranges);
  return ranges;
}

void KernelLayouts::note_ptx(Layout& layout, const ptx::KernelFootprint* found) {
  std::string why;
  if (found == nullptr) {
    why = "no PTX of it was found among the " + std::to_string(catalog_.texts()) + " PTX texts read (" +
          std::to_string(sources_.module_loads) + " from modules loaded through the driver, " +
          std::to_string(sources_.object_sections) + " from the program's objects; " +
          std::to_string(catalog_.unreadable()) + " could not be read" +
          (ptx::reads_compressed_ptx() ? ")" : ", since this build reads no compressed PTX)");
  } else if (!found->complete) {
    why = "its PTX was not followed: " + found->why_not;
  } else {
    layout.footprint = found;
    return;
  }
  // A program of many kernels (a framework's) would fill the log: the first ones are named, then a count is said once.
  if (++kernels_by_rule_ <= kNamedKernelsByRule)
    notes_.push_back("--ptx-footprints: kernel " + layout.name + " is judged by what its pointer arguments point to: " + why);
  else if (kernels_by_rule_ == kNamedKernelsByRule + 1)
    notes_.push_back("--ptx-footprints: more kernels are judged by what their pointer arguments point to; the first " +
                     std::to_string(kNamedKernelsByRule) + " are named above");
  else
    return;
  has_notes_ = true;
}

std::vector<std::string> KernelLayouts::take_notes() {
  if (!has_notes_.load(std::memory_order_relaxed)) return {};
  std::lock_guard lock(mutex_);
  has_notes_ = false;
  return std::exchange(notes_, {});
}

LaunchAccesses KernelLayouts::launch_accesses(CUfunction function, const char* symbol, void** kernel_params,
                                              void** extra, const Allocations& allocations,
                                              std::vector<KernelArgument>& arguments,
                                              const ptx::LaunchShape* shape) {
  const Layout& layout = layout_of(function, symbol, shape != nullptr);
  LaunchAccesses out{{}, layout.name, layout.known};
  if (!layout.known) return out;
  const std::span<const std::byte> packed = kernel_params == nullptr ? packed_buffer(extra) : std::span<const std::byte>();
  // The PTX's reading takes every parameter (a size 0 where its bytes are not known); the rule only the words that
  // can hold a pointer, as it did before PTX was read: a launch by the rule does no more than that.
  const bool by_ptx = layout.footprint != nullptr;
  arguments.clear();
  for (std::size_t i = 0; i < layout.parameters.size(); ++i) {
    const Parameter& p = layout.parameters[i];
    if (!by_ptx && p.size < sizeof(std::uintptr_t)) continue;
    const std::byte* bytes = nullptr;
    if (kernel_params != nullptr) {
      bytes = static_cast<const std::byte*>(kernel_params[i]);
    } else if (p.offset + p.size <= packed.size()) {
      bytes = packed.data() + p.offset;
    }
    if (bytes != nullptr || by_ptx)
      arguments.push_back(KernelArgument{std::span<const std::byte>(bytes, bytes != nullptr ? p.size : 0), p.access});
  }
  if (by_ptx) {
    if (std::optional<std::vector<DeviceRange>> ranges = ptx_ranges(layout, arguments, *shape)) {
      out.ranges = std::move(*ranges);
      out.from = RangeSource::ReadFromPtx;
      return out;
    }
    std::erase_if(arguments, [](const KernelArgument& a) { return a.bytes.size() < sizeof(std::uintptr_t); });
  }
  out.ranges = allocations.kernel_ranges(arguments);
  return out;
}

}  // namespace hazardlab::check::inject
