// Run with the shim preloaded: every thread the program creates, however (std::thread, a thread started by a
// thread, a detached pthread), must run the start hook before its own function, and the end hook when it ends,
// by returning or by pthread_exit. Exit 0 when each did, 1 when one did not, 77 when the shim is not preloaded.
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "checker/threads/thread_shim.hpp"

namespace {

thread_local bool hook_ran = false;
std::atomic<int> threads_run{0}, threads_without_hook{0}, threads_ended{0};

void hook() { hook_ran = true; }
void end_hook() { threads_ended.fetch_add(1); }

void body() {
  threads_run.fetch_add(1);
  if (!hook_ran) threads_without_hook.fetch_add(1);
}

void* detached(void* done) {
  body();
  static_cast<std::atomic<bool>*>(done)->store(true);
  return nullptr;
}

void* exits(void*) {
  body();
  pthread_exit(nullptr);
}

}  // namespace

int main() {
  const auto set_hooks = hazardlab::check::shim::preloaded_hook_setter();
  if (set_hooks == nullptr) {
    std::puts("the thread shim is not preloaded");
    return 77;
  }
  set_hooks(&hook, &end_hook, nullptr);
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
  pthread_t exiting;
  if (pthread_create(&exiting, nullptr, &exits, nullptr) != 0 || pthread_join(exiting, nullptr) != 0) return 1;
  // The detached thread may still be ending: its end hook runs after it said it was done.
  for (int i = 0; i < 10000 && threads_ended.load() < 8; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (hook_ran) {
    std::puts("the hook ran on the main thread, which the program did not create");
    return 1;
  }
  std::printf("%d threads run, %d without the hook first, %d ended with the end hook\n", threads_run.load(),
              threads_without_hook.load(), threads_ended.load());
  return threads_run.load() == 8 && threads_without_hook.load() == 0 && threads_ended.load() == 8 ? 0 : 1;
}
