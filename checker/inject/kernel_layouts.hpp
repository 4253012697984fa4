// Each kernel's parameter layout, as the driver gives it, and what a launch touches by its arguments. The
// checker (checker/core/device_conflicts.hpp) decides the races; the allocations the arguments are looked up in
// are the core's (checker/core/allocations.hpp).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "checker/core/allocations.hpp"
#include "checker/core/device_conflicts.hpp"

namespace hazardlab::check::inject {

// What a launch touches, by its arguments (kernel_ranges), and the kernel's name. `layout_known` is false when
// the driver could not give the parameter layout: the launch is then not watched.
struct LaunchAccesses {
  std::vector<DeviceRange> ranges;
  std::string_view kernel;
  bool layout_known = true;
};

class KernelLayouts {
 public:
  // `scratch` keeps its capacity between launches (a thread's own): a launch allocates no list of arguments.
  LaunchAccesses launch_accesses(CUfunction function, const char* symbol, void** kernel_params, void** extra,
                                 const Allocations& allocations, std::vector<KernelArgument>& scratch);

  struct Parameter {
    std::size_t offset = 0, size = 0;
    ArgumentAccess access = ArgumentAccess::MayWrite;
  };
  struct Layout {
    std::vector<Parameter> parameters;
    std::string name;
    bool known = false;
  };

 private:
  const Layout& layout_of(CUfunction function, const char* symbol);
  std::mutex mutex_;
  std::unordered_map<CUfunction, Layout> by_function_;  // node-based: a Layout stays where it is
};

}  // namespace hazardlab::check::inject
