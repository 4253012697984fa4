#include "checker/threads/thread_shim.hpp"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <new>

namespace {

std::atomic<HazardlabThreadStartHook> hook{nullptr};

using CreateThread = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

struct Start {
  void* (*function)(void*);
  void* argument;
};

void* start_with_hook(void* raw) {
  const Start start = *static_cast<Start*>(raw);
  delete static_cast<Start*>(raw);
  if (const HazardlabThreadStartHook h = hook.load(std::memory_order_acquire)) h();
  return start.function(start.argument);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void hazardlab_thread_shim_set_hook(HazardlabThreadStartHook h) { hook.store(h, std::memory_order_release); }

// The program's pthread_create, and every library's (std::thread, OpenMP and PyTorch's pools use it): the
// real one, with the hook run first on the new thread. Nothing else changes: the same attributes, the same
// result, the same error when it fails.
__attribute__((visibility("default"))) int pthread_create(pthread_t* thread, const pthread_attr_t* attributes,
                                                        void* (*function)(void*), void* argument) {
  static const auto real = reinterpret_cast<CreateThread>(::dlsym(RTLD_NEXT, "pthread_create"));
  if (real == nullptr) return EAGAIN;
  auto* start = new (std::nothrow) Start{function, argument};
  if (start == nullptr) return real(thread, attributes, function, argument);  // no hook rather than no thread
  const int result = real(thread, attributes, &start_with_hook, start);
  if (result != 0) delete start;
  return result;
}

}  // extern "C"
