#pragma once
#include <filesystem>
#include <string_view>

namespace hazardlab {

// Writes `contents` to `path` so that readers see either the previous file or the whole new
// one: write a temporary file beside it, flush it to disk, then rename it over the target.
// Throws std::runtime_error naming the path and the system error.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace hazardlab
