#include "hazardlab/output_file.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

fs::path absolute_of(const fs::path& path) {
  std::error_code ec;
  const fs::path whole = fs::absolute(path, ec);
  const fs::path real = fs::weakly_canonical(ec ? path : whole, ec);
  return (ec ? whole : real).lexically_normal();
}

// Whether `folder` takes a new file: one is made there under a unique name, and removed.
std::string refuses_new_files(const fs::path& folder) {
  std::string probe = (folder / ".hazardlab-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

}  // namespace

bool same_file(const fs::path& a, const fs::path& b) {
  struct stat x {}, y {};
  if (::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0) return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
  return absolute_of(a) == absolute_of(b);
}

std::string output_file_problem(const fs::path& path, const WrittenByUs& ours) {
  if (path.empty()) return "is empty; give a file to write";
  // Many tools read '-' as standard output: a report never goes there, and a file named '-' is surely a slip.
  if (path == "-") return "is '-', which would be a file named '-' here, not standard output; give a file name";
  std::error_code ec;
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) return "the folder " + parent.string() + " does not exist";
  const fs::file_status there = fs::symlink_status(path, ec);
  if (fs::is_directory(there)) return "is a folder; give a file name";
  if (fs::is_symlink(there)) return "is a symbolic link; a report is written only as a file of its own name";
  if (fs::exists(there) && !fs::is_regular_file(there))
    return "is not a regular file (a device, a pipe or a socket); give a file name";
  if (const std::string why = refuses_new_files(parent); !why.empty())
    return "the folder " + parent.string() + " does not take a new file (" + why + ")";
  if (fs::exists(there)) {
    std::ifstream in(path, std::ios::binary);
    if (!in.is_open())  // unreadable: whose it is cannot be told, so it is not replaced
      return std::string("cannot be read (") + std::strerror(errno) +
             "), so whether this command wrote it cannot be told; give a new file name, or make it readable";
    std::ostringstream text;
    text << in.rdbuf();
    if (!in || !ours(text.str()))
      return "is a file this command did not write (not one of its reports), and would be replaced; give a new "
             "file name, or move that file away first";
  }
  return "";
}

}  // namespace hazardlab
