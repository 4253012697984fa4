// The device bytes a copy or a memset touches, from the driver's description of it: no driver call, so the
// decoders' arithmetic is tested on the CPU.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <vector>

#include "checker/core/device_conflicts.hpp"

namespace hazardlab::check::inject {

// Which end of a copy a CUDA_MEMCPY3D's fields are read for.
enum class CopySide { Source, Destination };

// One end of a 2D or 3D copy as the driver describes it (CUDA_MEMCPY3D's fields of that end, and the extent).
struct CopyEndShape {
  CUmemorytype type = CU_MEMORYTYPE_DEVICE;
  CUdeviceptr device = 0;
  std::size_t x = 0, y = 0, z = 0;  // the first byte's offsets: bytes, rows, slices
  std::size_t pitch = 0, height = 0;  // 0: packed (the width; the rows)
  std::size_t width = 0, rows = 0, depth = 1;
};

// The device bytes one end of a 2D or 3D copy touches, row by row (a device end, or a unified one that points
// at device memory); nothing for a host end or an array, whose device bytes are not known.
void add_copy_end_ranges(const CopyEndShape& end, DeviceAccessKind access, std::vector<DeviceRange>& out);
// A linear range, or nothing when it is empty.
void add_range(CUdeviceptr begin, std::size_t bytes, DeviceAccessKind access, std::vector<DeviceRange>& out);

}  // namespace hazardlab::check::inject
