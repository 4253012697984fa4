#include "checker/inject/device_ranges.hpp"

namespace hazardlab::check::inject {

void add_range(CUdeviceptr begin, std::size_t bytes, DeviceAccessKind access, std::vector<DeviceRange>& out) {
  if (bytes > 0) out.push_back(DeviceRange{begin, begin + bytes, access});
}

void add_copy_end_ranges(const CopyEndShape& end, DeviceAccessKind access, std::vector<DeviceRange>& out) {
  if (end.type != CU_MEMORYTYPE_DEVICE && end.type != CU_MEMORYTYPE_UNIFIED) return;
  if (end.width == 0 || end.rows == 0 || end.depth == 0) return;
  const std::size_t pitch = end.pitch == 0 ? end.width : end.pitch;
  const std::size_t slice_pitch = pitch * (end.height == 0 ? end.rows : end.height);
  const std::uintptr_t first = end.device + end.z * slice_pitch + end.y * pitch + end.x;
  if (pitch == end.width && slice_pitch == end.width * end.rows)
    return add_range(first, end.width * end.rows * end.depth, access, out);
  for (std::size_t slice = 0; slice < end.depth; ++slice)
    for (std::size_t row = 0; row < end.rows; ++row)
      add_range(first + slice * slice_pitch + row * pitch, end.width, access, out);
}

}  // namespace hazardlab::check::inject
