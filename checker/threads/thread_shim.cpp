#include "checker/threads/thread_shim.hpp"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <new>

namespace {

std::atomic<HazardlabThreadHook> start_hook{nullptr}, end_hook{nullptr};
std::atomic<HazardlabKernelAccessHook> kernel_access{nullptr};

using CreateThread = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

struct Start {
  void* (*function)(void*);
  void* argument;
};

// The end hook runs as a thread-specific value's destructor: however the thread ends (a return, pthread_exit,
// cancellation), with no unwinding through this library.
pthread_key_t ending;
pthread_once_t ending_once = PTHREAD_ONCE_INIT;
void thread_ends(void*) {
  if (const HazardlabThreadHook h = end_hook.load(std::memory_order_acquire)) h();
}
void make_ending_key() { (void)pthread_key_create(&ending, &thread_ends); }

void* start_with_hook(void* raw) {
  const Start start = *static_cast<Start*>(raw);
  delete static_cast<Start*>(raw);
  if (const HazardlabThreadHook h = start_hook.load(std::memory_order_acquire)) h();
  (void)pthread_setspecific(ending, &ending);  // any value but null: its destructor runs at the end
  return start.function(start.argument);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void hazardlab_thread_shim_set_hooks(
    HazardlabThreadHook start, HazardlabThreadHook end, HazardlabKernelAccessHook kernel_access_first) {
  start_hook.store(start, std::memory_order_release);
  end_hook.store(end, std::memory_order_release);
  kernel_access.store(kernel_access_first, std::memory_order_release);
}

// The program's pthread_create, and every library's (std::thread, OpenMP and PyTorch's pools use it): the
// real one, with the hooks run on the new thread. Nothing else changes: the same attributes, the same
// result, the same error when it fails.
__attribute__((visibility("default"))) int pthread_create(pthread_t* thread, const pthread_attr_t* attributes,
                                                        void* (*function)(void*), void* argument) {
  static const auto real = reinterpret_cast<CreateThread>(::dlsym(RTLD_NEXT, "pthread_create"));
  if (real == nullptr) return EAGAIN;
  (void)pthread_once(&ending_once, &make_ending_key);
  auto* start = new (std::nothrow) Start{function, argument};
  if (start == nullptr) return real(thread, attributes, function, argument);  // no hook rather than no thread
  const int result = real(thread, attributes, &start_with_hook, start);
  if (result != 0) delete start;
  return result;
}

}  // extern "C"

namespace hazardlab::check::shim {
HazardlabKernelAccessHook kernel_access_hook() { return kernel_access.load(std::memory_order_acquire); }
}  // namespace hazardlab::check::shim
