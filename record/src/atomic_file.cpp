#include "hazardlab/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace hazardlab {
namespace {
[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path, int err) {
  throw std::runtime_error("cannot " + what + " " + path.string() + ": " + std::strerror(err));
}

std::string identity_text(const struct stat& st) {
  return std::to_string(static_cast<unsigned long long>(st.st_dev)) + ":" +
         std::to_string(static_cast<unsigned long long>(st.st_ino));
}
}  // namespace

std::string file_identity(const std::filesystem::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? identity_text(st) : "";
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  write_file_atomically(path, [contents](const std::string&) { return std::string(contents); });
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<std::string(const std::string& identity)>& contents_of) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  // Only a file is replaced: a link (or anything else) in its place is not hazardlab's to turn into a file.
  const std::filesystem::file_status there = std::filesystem::symlink_status(path, ec);
  if (std::filesystem::exists(there) && !std::filesystem::is_regular_file(there))
    throw std::runtime_error("will not write " + path.string() + ": it is " +
                             (std::filesystem::is_symlink(there) ? "a symbolic link" : "not a regular file") +
                             ", and hazardlab replaces only files; it is left as it is");
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create directory " + dir.string() + ": " + ec.message());

  const std::filesystem::path tmp =
      dir / ("." + path.filename().string() + ".tmp." + std::to_string(static_cast<long>(::getpid())));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    // Named by the file asked for and its folder, not by the temporary beside it.
    const int err = errno;
    throw std::runtime_error("cannot write " + path.string() + ": its folder " + dir.string() + " cannot be written (" +
                             std::strerror(err) + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail("inspect", tmp, err);
  }
  std::string contents;
  try {
    contents = contents_of(identity_text(st));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("write", tmp, err);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("flush", tmp, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("rename into place", path, err);
  }
  // Make the rename itself durable.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace hazardlab
