// Run with the shim preloaded: every thread the program creates, however (std::thread, a thread started by a
// thread, a detached pthread), must run the hook before its own function. Exit 0 when each did, 1 when one did
// not, 77 when the shim is not preloaded.
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "checker/threads/thread_shim.hpp"

namespace {

thread_local bool hook_ran = false;
std::atomic<int> threads_run{0}, threads_without_hook{0};

void hook() { hook_ran = true; }

void body() {
  threads_run.fetch_add(1);
  if (!hook_ran) threads_without_hook.fetch_add(1);
}

void* detached(void* done) {
  body();
  static_cast<std::atomic<bool>*>(done)->store(true);
  return nullptr;
}

}  // namespace

int main() {
  const auto set_hook = reinterpret_cast<void (*)(HazardlabThreadStartHook)>(
      ::dlsym(RTLD_DEFAULT, "hazardlab_thread_shim_set_hook"));
  if (set_hook == nullptr) {
    std::puts("the thread shim is not preloaded");
    return 77;
  }
  set_hook(&hook);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back(body);
  threads.emplace_back([] { std::thread inner(body); inner.join(); body(); });
  for (std::thread& t : threads) t.join();
  std::atomic<bool> done{false};
  pthread_t t;
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&t, &attributes, &detached, &done) != 0) return 1;
  while (!done.load()) std::this_thread::yield();
  if (hook_ran) {
    std::puts("the hook ran on the main thread, which the program did not create");
    return 1;
  }
  std::printf("%d threads run, %d without the hook first\n", threads_run.load(), threads_without_hook.load());
  return threads_run.load() == 7 && threads_without_hook.load() == 0 ? 0 : 1;
}
