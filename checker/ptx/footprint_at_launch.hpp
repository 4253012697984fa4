// A kernel's footprint (kernel_reading.hpp) for one launch: its parameters' words read from the launch's
// arguments, its grid and block put in, and each access's address bounded over every thread, block and loop
// iteration by the conditions that hold where it runs. A loop's index is bounded by its exit test; a thread past
// the end of the data by the test that keeps it out. CUDA-free.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "checker/core/device_conflicts.hpp"
#include "checker/ptx/kernel_reading.hpp"

namespace hazardlab::check::ptx {

struct LaunchShape {
  std::array<std::uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
};

// The device bytes the launch may touch, merged by kind (a read and a write of one byte both stay), or none when
// the reading cannot bound them for this launch: a check failed (a value could wrap with these arguments), an
// address has no bound, an argument is shorter than a word the kernel reads from it, the footprint is incomplete.
std::optional<std::vector<DeviceRange>> footprint_at_launch(const KernelFootprint& footprint,
                                                            std::span<const std::span<const std::byte>> arguments,
                                                            const LaunchShape& shape);

}  // namespace hazardlab::check::ptx
