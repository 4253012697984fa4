// The device's half in the injected library: the device memory the program allocated (for the lookup of a
// kernel's arguments), each kernel's parameter layout as the driver gives it, and the device ranges of copies
// and memsets. The checker (checker/core/device_conflicts.hpp) decides the races.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "checker/core/device_conflicts.hpp"

namespace hazardlab::check::inject {

// cuMemAlloc*, a stream-ordered pool's block, managed memory, a virtual memory map: looked up by launches.
void device_allocated(std::uintptr_t base, std::size_t bytes);
// The allocation at `base` is gone; its size (0: not one the checker saw allocated).
std::size_t device_released(std::uintptr_t base);

// What a launch touches, by its arguments (kernel_ranges), and the kernel's name. `layout_known` is false when
// the driver could not give the parameter layout: the launch is then not watched.
struct LaunchAccesses {
  std::vector<DeviceRange> ranges;
  std::string_view kernel;
  bool layout_known = true;
};
LaunchAccesses launch_accesses(CUfunction function, const char* symbol, void** kernel_params, void** extra);

// The device bytes one end of a 2D or 3D copy touches, row by row (a device end, or a unified one that points
// at device memory); nothing for a host end or an array, whose device bytes are not known.
void add_copy_end_ranges(CUmemorytype type, CUdeviceptr device, std::size_t x, std::size_t y, std::size_t z,
                         std::size_t pitch, std::size_t height, std::size_t width, std::size_t rows,
                         std::size_t depth, DeviceAccessKind access, std::vector<DeviceRange>& out);
// A linear range, or nothing when it is empty.
void add_range(CUdeviceptr begin, std::size_t bytes, DeviceAccessKind access, std::vector<DeviceRange>& out);

}  // namespace hazardlab::check::inject
