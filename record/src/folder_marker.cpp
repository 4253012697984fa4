#include "hazardlab/folder_marker.hpp"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "hazardlab/atomic_file.hpp"

namespace hazardlab {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMadeFor = "made for folder ";

// "<device>:<inode>" of the folder itself (not of what a link to it points at); "" if it cannot be read.
std::string identity_of(const fs::path& folder) {
  struct stat st {};
  if (::lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "";
  return std::to_string(static_cast<unsigned long long>(st.st_dev)) + ":" +
         std::to_string(static_cast<unsigned long long>(st.st_ino));
}

// The identity the marker names, "" if it names none.
std::string named_identity(const fs::path& marker_file) {
  std::ifstream in(marker_file);
  std::string line, last;
  while (std::getline(in, line))
    if (line.rfind(kMadeFor, 0) == 0) last = line.substr(kMadeFor.size());
  return last;
}

}  // namespace

void write_marker(const fs::path& folder, std::string_view marker, std::string_view text) {
  const std::string identity = identity_of(folder);
  if (identity.empty()) throw std::runtime_error("cannot mark " + folder.string() + ": it is not a folder");
  std::string contents(text);
  if (!contents.empty() && contents.back() != '\n') contents += '\n';
  write_file_atomically(folder / marker, contents + std::string(kMadeFor) + identity + "\n");
}

std::string marker_problem(const fs::path& folder, std::string_view marker) {
  std::error_code ec;
  const fs::path file = folder / marker;
  const fs::file_status status = fs::symlink_status(file, ec);
  if (!fs::exists(status)) return "";
  if (!fs::is_regular_file(status)) return "its " + std::string(marker) + " is not a regular file";
  const std::string named = named_identity(file);
  if (named.empty()) return "its " + std::string(marker) + " names no folder (written by hand, or by a hazardlab before 0.3)";
  if (named != identity_of(folder))
    return "its " + std::string(marker) + " was made for another folder (this one is a copy, or the marker was copied in)";
  return "";
}

bool carries_marker(const fs::path& folder, std::string_view marker) {
  std::error_code ec;
  return fs::is_regular_file(fs::symlink_status(folder / marker, ec)) && marker_problem(folder, marker).empty();
}

}  // namespace hazardlab
