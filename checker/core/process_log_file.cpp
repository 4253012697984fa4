// A process log's file, opened for the reader: refused before anything is read when it is no regular file (a FIFO
// would block for ever, a device never end), and known by its identity (the same file given twice is refused).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "checker/core/process_log.hpp"

namespace hazardlab::check {

namespace {

std::string kind_of(mode_t mode) {
  return S_ISFIFO(mode)   ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISDIR(mode)  ? "a folder"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

}  // namespace

std::string process_log_identity(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return std::to_string(static_cast<unsigned long long>(st.st_dev)) + ":" +
         std::to_string(static_cast<unsigned long long>(st.st_ino));
}

int open_log_file(const std::filesystem::path& file) {
  const std::string name = file.string();
  if (name.empty()) throw ProcessLogError("the process log's path is empty ('' was given); give a process log file");
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) throw ProcessLogError(name + ": cannot be read (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) throw ProcessLogError(name + ": is " + kind_of(st.st_mode) + ", not a process log");
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw ProcessLogError(name + ": cannot be read (" + std::strerror(errno) + ")");
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // replaced between the two looks
    ::close(fd);
    throw ProcessLogError(name + ": is not a regular file, not a process log");
  }
  return fd;
}

}  // namespace hazardlab::check
