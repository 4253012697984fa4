// The C library's calls that have the kernel read or write a buffer of the program, each wrapped: the
// injected library's kernel-access hook runs first on the calling thread, then the C library's own function
// with the same arguments, its result and errno unchanged. With no hook installed a wrapper only passes the
// call on.
//
// Why these: under range keys a thread opens a pinned range's key at its first access, which is a fault. The
// kernel obeys the thread's rights too but raises no fault, so a thread whose first access of a pinned buffer
// is read(2) into it, or fread, or recv on a proxy thread, would see EFAULT where the program alone succeeds.
// Fortified builds call the __*_chk forms. The C library's calls from inside itself (fread's own read) do not
// pass through here, which is why fread and fwrite are wrapped themselves. Not wrapped (what the checker's
// README says it does not see): raw syscall(2), io_uring and asynchronous I/O, recvmmsg and sendmmsg,
// vmsplice, and ioctl calls that hand a buffer to a driver.
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "checker/threads/buffer_hooks.hpp"

using namespace hazardlab::check::shim::buffers;

#define HAZARDLAB_EXPORT extern "C" __attribute__((visibility("default")))

// The kernel writes the program's buffer.
HAZARDLAB_EXPORT ssize_t read(int fd, void* buffer, size_t bytes) {
  HAZARDLAB_REAL(read, ssize_t (*)(int, void*, size_t));
  reaches(buffer, bytes, kKernelWrites);
  return real_read(fd, buffer, bytes);
}
HAZARDLAB_EXPORT ssize_t __read_chk(int fd, void* buffer, size_t bytes, size_t buffer_size) {
  HAZARDLAB_REAL(__read_chk, ssize_t (*)(int, void*, size_t, size_t));
  reaches(buffer, bytes, kKernelWrites);
  return real___read_chk(fd, buffer, bytes, buffer_size);
}
HAZARDLAB_EXPORT ssize_t pread(int fd, void* buffer, size_t bytes, off_t offset) {
  HAZARDLAB_REAL(pread, ssize_t (*)(int, void*, size_t, off_t));
  reaches(buffer, bytes, kKernelWrites);
  return real_pread(fd, buffer, bytes, offset);
}
HAZARDLAB_EXPORT ssize_t pread64(int fd, void* buffer, size_t bytes, off64_t offset) {
  HAZARDLAB_REAL(pread64, ssize_t (*)(int, void*, size_t, off64_t));
  reaches(buffer, bytes, kKernelWrites);
  return real_pread64(fd, buffer, bytes, offset);
}
HAZARDLAB_EXPORT ssize_t __pread_chk(int fd, void* buffer, size_t bytes, off_t offset, size_t buffer_size) {
  HAZARDLAB_REAL(__pread_chk, ssize_t (*)(int, void*, size_t, off_t, size_t));
  reaches(buffer, bytes, kKernelWrites);
  return real___pread_chk(fd, buffer, bytes, offset, buffer_size);
}
HAZARDLAB_EXPORT ssize_t __pread64_chk(int fd, void* buffer, size_t bytes, off64_t offset, size_t buffer_size) {
  HAZARDLAB_REAL(__pread64_chk, ssize_t (*)(int, void*, size_t, off64_t, size_t));
  reaches(buffer, bytes, kKernelWrites);
  return real___pread64_chk(fd, buffer, bytes, offset, buffer_size);
}
HAZARDLAB_EXPORT ssize_t readv(int fd, const struct iovec* vector, int count) {
  HAZARDLAB_REAL(readv, ssize_t (*)(int, const struct iovec*, int));
  reaches(vector, count, kKernelWrites);
  return real_readv(fd, vector, count);
}
HAZARDLAB_EXPORT ssize_t preadv(int fd, const struct iovec* vector, int count, off_t offset) {
  HAZARDLAB_REAL(preadv, ssize_t (*)(int, const struct iovec*, int, off_t));
  reaches(vector, count, kKernelWrites);
  return real_preadv(fd, vector, count, offset);
}
HAZARDLAB_EXPORT ssize_t preadv64(int fd, const struct iovec* vector, int count, off64_t offset) {
  HAZARDLAB_REAL(preadv64, ssize_t (*)(int, const struct iovec*, int, off64_t));
  reaches(vector, count, kKernelWrites);
  return real_preadv64(fd, vector, count, offset);
}
HAZARDLAB_EXPORT ssize_t preadv2(int fd, const struct iovec* vector, int count, off_t offset, int flags) {
  HAZARDLAB_REAL(preadv2, ssize_t (*)(int, const struct iovec*, int, off_t, int));
  reaches(vector, count, kKernelWrites);
  return real_preadv2(fd, vector, count, offset, flags);
}
HAZARDLAB_EXPORT ssize_t preadv64v2(int fd, const struct iovec* vector, int count, off64_t offset, int flags) {
  HAZARDLAB_REAL(preadv64v2, ssize_t (*)(int, const struct iovec*, int, off64_t, int));
  reaches(vector, count, kKernelWrites);
  return real_preadv64v2(fd, vector, count, offset, flags);
}
HAZARDLAB_EXPORT ssize_t recv(int fd, void* buffer, size_t bytes, int flags) {
  HAZARDLAB_REAL(recv, ssize_t (*)(int, void*, size_t, int));
  reaches(buffer, bytes, kKernelWrites);
  return real_recv(fd, buffer, bytes, flags);
}
HAZARDLAB_EXPORT ssize_t __recv_chk(int fd, void* buffer, size_t bytes, size_t buffer_size, int flags) {
  HAZARDLAB_REAL(__recv_chk, ssize_t (*)(int, void*, size_t, size_t, int));
  reaches(buffer, bytes, kKernelWrites);
  return real___recv_chk(fd, buffer, bytes, buffer_size, flags);
}
HAZARDLAB_EXPORT ssize_t recvfrom(int fd, void* buffer, size_t bytes, int flags, struct sockaddr* from,
                                  socklen_t* from_size) {
  HAZARDLAB_REAL(recvfrom, ssize_t (*)(int, void*, size_t, int, struct sockaddr*, socklen_t*));
  reaches(buffer, bytes, kKernelWrites);
  return real_recvfrom(fd, buffer, bytes, flags, from, from_size);
}
HAZARDLAB_EXPORT ssize_t __recvfrom_chk(int fd, void* buffer, size_t bytes, size_t buffer_size, int flags,
                                        struct sockaddr* from, socklen_t* from_size) {
  HAZARDLAB_REAL(__recvfrom_chk, ssize_t (*)(int, void*, size_t, size_t, int, struct sockaddr*, socklen_t*));
  reaches(buffer, bytes, kKernelWrites);
  return real___recvfrom_chk(fd, buffer, bytes, buffer_size, flags, from, from_size);
}
HAZARDLAB_EXPORT ssize_t recvmsg(int fd, struct msghdr* message, int flags) {
  HAZARDLAB_REAL(recvmsg, ssize_t (*)(int, struct msghdr*, int));
  reaches(message, kKernelWrites);
  return real_recvmsg(fd, message, flags);
}
HAZARDLAB_EXPORT size_t fread(void* buffer, size_t size, size_t count, FILE* stream) {
  HAZARDLAB_REAL(fread, size_t (*)(void*, size_t, size_t, FILE*));
  reaches(buffer, product(size, count), kKernelWrites);
  return real_fread(buffer, size, count, stream);
}
HAZARDLAB_EXPORT size_t fread_unlocked(void* buffer, size_t size, size_t count, FILE* stream) {
  HAZARDLAB_REAL(fread_unlocked, size_t (*)(void*, size_t, size_t, FILE*));
  reaches(buffer, product(size, count), kKernelWrites);
  return real_fread_unlocked(buffer, size, count, stream);
}
HAZARDLAB_EXPORT size_t __fread_chk(void* buffer, size_t buffer_size, size_t size, size_t count, FILE* stream) {
  HAZARDLAB_REAL(__fread_chk, size_t (*)(void*, size_t, size_t, size_t, FILE*));
  reaches(buffer, product(size, count), kKernelWrites);
  return real___fread_chk(buffer, buffer_size, size, count, stream);
}
HAZARDLAB_EXPORT size_t __fread_unlocked_chk(void* buffer, size_t buffer_size, size_t size, size_t count,
                                             FILE* stream) {
  HAZARDLAB_REAL(__fread_unlocked_chk, size_t (*)(void*, size_t, size_t, size_t, FILE*));
  reaches(buffer, product(size, count), kKernelWrites);
  return real___fread_unlocked_chk(buffer, buffer_size, size, count, stream);
}

// The kernel reads the program's buffer.
HAZARDLAB_EXPORT ssize_t write(int fd, const void* buffer, size_t bytes) {
  HAZARDLAB_REAL(write, ssize_t (*)(int, const void*, size_t));
  reaches(buffer, bytes, kKernelReads);
  return real_write(fd, buffer, bytes);
}
HAZARDLAB_EXPORT ssize_t pwrite(int fd, const void* buffer, size_t bytes, off_t offset) {
  HAZARDLAB_REAL(pwrite, ssize_t (*)(int, const void*, size_t, off_t));
  reaches(buffer, bytes, kKernelReads);
  return real_pwrite(fd, buffer, bytes, offset);
}
HAZARDLAB_EXPORT ssize_t pwrite64(int fd, const void* buffer, size_t bytes, off64_t offset) {
  HAZARDLAB_REAL(pwrite64, ssize_t (*)(int, const void*, size_t, off64_t));
  reaches(buffer, bytes, kKernelReads);
  return real_pwrite64(fd, buffer, bytes, offset);
}
HAZARDLAB_EXPORT ssize_t writev(int fd, const struct iovec* vector, int count) {
  HAZARDLAB_REAL(writev, ssize_t (*)(int, const struct iovec*, int));
  reaches(vector, count, kKernelReads);
  return real_writev(fd, vector, count);
}
HAZARDLAB_EXPORT ssize_t pwritev(int fd, const struct iovec* vector, int count, off_t offset) {
  HAZARDLAB_REAL(pwritev, ssize_t (*)(int, const struct iovec*, int, off_t));
  reaches(vector, count, kKernelReads);
  return real_pwritev(fd, vector, count, offset);
}
HAZARDLAB_EXPORT ssize_t pwritev64(int fd, const struct iovec* vector, int count, off64_t offset) {
  HAZARDLAB_REAL(pwritev64, ssize_t (*)(int, const struct iovec*, int, off64_t));
  reaches(vector, count, kKernelReads);
  return real_pwritev64(fd, vector, count, offset);
}
HAZARDLAB_EXPORT ssize_t pwritev2(int fd, const struct iovec* vector, int count, off_t offset, int flags) {
  HAZARDLAB_REAL(pwritev2, ssize_t (*)(int, const struct iovec*, int, off_t, int));
  reaches(vector, count, kKernelReads);
  return real_pwritev2(fd, vector, count, offset, flags);
}
HAZARDLAB_EXPORT ssize_t pwritev64v2(int fd, const struct iovec* vector, int count, off64_t offset, int flags) {
  HAZARDLAB_REAL(pwritev64v2, ssize_t (*)(int, const struct iovec*, int, off64_t, int));
  reaches(vector, count, kKernelReads);
  return real_pwritev64v2(fd, vector, count, offset, flags);
}
HAZARDLAB_EXPORT ssize_t send(int fd, const void* buffer, size_t bytes, int flags) {
  HAZARDLAB_REAL(send, ssize_t (*)(int, const void*, size_t, int));
  reaches(buffer, bytes, kKernelReads);
  return real_send(fd, buffer, bytes, flags);
}
HAZARDLAB_EXPORT ssize_t sendto(int fd, const void* buffer, size_t bytes, int flags, const struct sockaddr* to,
                                socklen_t to_size) {
  HAZARDLAB_REAL(sendto, ssize_t (*)(int, const void*, size_t, int, const struct sockaddr*, socklen_t));
  reaches(buffer, bytes, kKernelReads);
  return real_sendto(fd, buffer, bytes, flags, to, to_size);
}
HAZARDLAB_EXPORT ssize_t sendmsg(int fd, const struct msghdr* message, int flags) {
  HAZARDLAB_REAL(sendmsg, ssize_t (*)(int, const struct msghdr*, int));
  reaches(message, kKernelReads);
  return real_sendmsg(fd, message, flags);
}
HAZARDLAB_EXPORT size_t fwrite(const void* buffer, size_t size, size_t count, FILE* stream) {
  HAZARDLAB_REAL(fwrite, size_t (*)(const void*, size_t, size_t, FILE*));
  reaches(buffer, product(size, count), kKernelReads);
  return real_fwrite(buffer, size, count, stream);
}
HAZARDLAB_EXPORT size_t fwrite_unlocked(const void* buffer, size_t size, size_t count, FILE* stream) {
  HAZARDLAB_REAL(fwrite_unlocked, size_t (*)(const void*, size_t, size_t, FILE*));
  reaches(buffer, product(size, count), kKernelReads);
  return real_fwrite_unlocked(buffer, size, count, stream);
}
