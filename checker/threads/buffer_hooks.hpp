// How a wrapper of buffer_calls.cpp reaches the C library's own function and runs the kernel-access hook on the
// buffers the call hands the kernel (each buffer of an I/O vector or a message too). Included by buffer_calls.cpp
// alone: everything here is internal to the thread shim.
#pragma once

#include <dlfcn.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstddef>

#include "checker/threads/thread_shim.hpp"

namespace hazardlab::check::shim::buffers {

inline void* next_definition(const char* name) { return ::dlsym(RTLD_NEXT, name); }

// The C library's function, looked up once (a race looks up the same address twice).
#define HAZARDLAB_REAL(name, ...)                                                           \
  using name##_type = __VA_ARGS__;                                                          \
  static std::atomic<name##_type> real_##name##_once{nullptr};                              \
  name##_type real_##name = real_##name##_once.load(std::memory_order_relaxed);             \
  if (real_##name == nullptr) {                                                             \
    real_##name = reinterpret_cast<name##_type>(next_definition(#name));                    \
    real_##name##_once.store(real_##name, std::memory_order_relaxed);                       \
  }

// The hook, with the program's errno as it was: the call that follows sets it, or leaves it, as alone.
// Its answer matters only when asked with no buffer (see wants_buffers).
inline bool run_hook(HazardlabKernelAccessHook hook, const void* buffer, std::size_t bytes, bool kernel_writes) {
  const int saved = errno;
  const bool answer = hook(buffer, bytes, kernel_writes ? 1 : 0) != 0;
  errno = saved;
  return answer;
}
inline void reaches(const void* buffer, std::size_t bytes, bool kernel_writes) {
  if (const HazardlabKernelAccessHook hook = kernel_access_hook()) run_hook(hook, buffer, bytes, kernel_writes);
}
// Each buffer of an I/O vector, read only when the hook may need them (a vector the kernel would refuse, too
// long, none or unreadable, is the kernel's to refuse, and is not read at all while the thread's keys are open).
inline bool wants_buffers(HazardlabKernelAccessHook hook, bool kernel_writes) {
  return run_hook(hook, nullptr, 0, kernel_writes);
}
inline void reaches(const struct iovec* vector, int count, bool kernel_writes) {
  const HazardlabKernelAccessHook hook = kernel_access_hook();
  if (hook == nullptr || vector == nullptr || count <= 0 || count > IOV_MAX || !wants_buffers(hook, kernel_writes))
    return;
  for (int i = 0; i < count; ++i) run_hook(hook, vector[i].iov_base, vector[i].iov_len, kernel_writes);
}
inline void reaches(const struct msghdr* message, bool kernel_writes) {
  const HazardlabKernelAccessHook hook = kernel_access_hook();
  if (hook == nullptr || message == nullptr || !wants_buffers(hook, kernel_writes)) return;
  reaches(message->msg_iov, static_cast<int>(message->msg_iovlen), kernel_writes);
  if (message->msg_control != nullptr) reaches(message->msg_control, message->msg_controllen, kernel_writes);
}
inline std::size_t product(std::size_t size, std::size_t count) {
  std::size_t bytes = 0;
  return __builtin_mul_overflow(size, count, &bytes) ? static_cast<std::size_t>(-1) : bytes;
}

inline constexpr bool kKernelWrites = true, kKernelReads = false;

}  // namespace hazardlab::check::shim::buffers
