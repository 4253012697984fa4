#pragma once
// ctest's resource spec file, as the run plan writes it for ctest (harness/plan/gpu_resources.hpp says what it
// holds): one file per ctest, ctest-<its pid>.json, in the folder the registration names.
#include <filesystem>
#include <vector>

namespace hazardlab {

// Writes ctest's resource spec of `devices` for the ctest `owner` into `folder` (made when missing) and returns its
// path; "" when `folder` is empty (no spec asked for). The files hazardlab wrote for ctests that have ended are
// removed; nothing else in the folder is touched, since a file is pruned or replaced only when it carries the spec's
// marker. Throws std::invalid_argument, before anything is written, when `folder` is no folder or this ctest's file
// is there and is not hazardlab's.
std::filesystem::path write_ctest_resource_spec(const std::filesystem::path& folder, long owner,
                                                const std::vector<int>& devices);

}  // namespace hazardlab
