#pragma once
// A report file a command is asked to write (hazardlab check --json, hazardlab-host-interference --json), judged
// before any work: the file is written at the end, after the program ran or the GPUs were measured, and a path
// that cannot take it must be said first, and a user's file must never be replaced by it.
#include <filesystem>
#include <functional>
#include <string>

namespace hazardlab {

// Whether `contents`, an existing file's, is a report this command wrote (by its schema, tool name or marker line):
// only such a file is replaced.
using WrittenByUs = std::function<bool(const std::string& contents)>;

// Why `path` cannot take the report ("" if it can; else words that follow the path: "is a folder; ..."): an empty name, a folder, a folder that does not exist, or does
// not take a new file (a uniquely named file is made there and removed: access(2) says yes to root on a read-only
// file system or in /proc), a symbolic link, anything but a regular file (a FIFO, /dev/null), or a file that
// `ours` does not recognize as a report this command wrote (a user's file, the program's input).
std::string output_file_problem(const std::filesystem::path& path, const WrittenByUs& ours);

// Whether two paths name one file: the same absolute path (for files not made yet), or the same device and inode.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace hazardlab
