#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace hazardlab {

// Writes `contents` to `path` so that readers see either the previous file or the whole new
// one: write a temporary file beside it, flush it to disk, then rename it over the target.
// Throws std::runtime_error naming the path and the system error.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// The same, for a file that names itself: `contents` is given "<device>:<inode>" of the file being written,
// which the file keeps once it is renamed into place, and which no copy of it has (so that a copy, or a file
// written by hand, is never taken for the one hazardlab wrote).
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<std::string(const std::string& identity)>& contents);

// "<device>:<inode>" of `path` itself (not of what a link points at); "" when it cannot be read.
std::string file_identity(const std::filesystem::path& path);

}  // namespace hazardlab
