// Each kernel's parameter layout, as the driver gives it, and what a launch touches by its arguments. The
// checker (checker/core/device_conflicts.hpp) decides the races; the allocations the arguments are looked up in
// are the core's (checker/core/allocations.hpp).
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "checker/core/allocations.hpp"
#include "checker/core/device_conflicts.hpp"
#include "checker/ptx/footprint_at_launch.hpp"
#include "checker/ptx/kernel_catalog.hpp"

namespace hazardlab::check::inject {

// What a launch touches, by its arguments (kernel_ranges) or by its PTX (`from`), and the kernel's name.
// `layout_known` is false when the driver could not give the parameter layout: the launch is then not watched.
struct LaunchAccesses {
  std::vector<DeviceRange> ranges;
  std::string_view kernel;
  bool layout_known = true;
  RangeSource from = RangeSource::PointedElement;
};

// Where the PTX the catalog holds came from (the log's note says, under `--ptx-footprints`).
struct PtxSources {
  std::size_t module_loads = 0, object_sections = 0;
};

class KernelLayouts {
 public:
  // `scratch` keeps its capacity between launches (a thread's own): a launch allocates no list of arguments.
  // `shape` given (under `--ptx-footprints`): the kernel's PTX bounds what it touches where it can be followed.
  LaunchAccesses launch_accesses(CUfunction function, const char* symbol, void** kernel_params, void** extra,
                                 const Allocations& allocations, std::vector<KernelArgument>& scratch,
                                 const ptx::LaunchShape* shape = nullptr);

  // The PTX of a module the program loads (an image handed to the driver, kernel_ptx.cpp).
  void add_module_ptx(ptx::FoundPtx found);
  // What the log should say of kernels first seen since the last call: under `--ptx-footprints`, each kernel judged
  // by its rule and why. Empty, without a lock, when there is nothing.
  std::vector<std::string> take_notes();

  struct Parameter {
    std::size_t offset = 0, size = 0;
    ArgumentAccess access = ArgumentAccess::MayWrite;
  };
  struct Layout {
    std::vector<Parameter> parameters;
    std::string name;
    bool known = false;
    const ptx::KernelFootprint* footprint = nullptr;  // read from its PTX, when asked and found
    // A launch's ranges by its argument bytes, grid and block: a loop launches the same kernel the same way, and
    // bounding the PTX's accesses takes microseconds (under mutex_, at most kRemembered launches).
    mutable std::unordered_map<std::string, std::optional<std::vector<DeviceRange>>> remembered;
  };
  static constexpr std::size_t kRemembered = 256;

 private:
  const Layout& layout_of(CUfunction function, const char* symbol, bool read_ptx);
  std::optional<std::vector<DeviceRange>> ptx_ranges(const Layout& layout, std::span<const KernelArgument> arguments,
                                                     const ptx::LaunchShape& shape);
  const ptx::KernelFootprint* find_ptx(const char* symbol);  // under mutex_
  void note_ptx(Layout& layout, const ptx::KernelFootprint* found);  // under mutex_
  std::mutex mutex_;
  std::unordered_map<CUfunction, Layout> by_function_;  // node-based: a Layout stays where it is
  ptx::KernelCatalog catalog_;
  PtxSources sources_;
  std::vector<std::string> objects_read_;  // the ELF objects whose .nv_fatbin section was read
  std::vector<std::string> notes_;
  static constexpr std::size_t kNamedKernelsByRule = 8;
  std::size_t kernels_by_rule_ = 0;
  std::atomic<bool> has_notes_{false};
};

}  // namespace hazardlab::check::inject
