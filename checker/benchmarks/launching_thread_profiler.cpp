// A sampling profile of a program's launching (main) thread, for machines without perf: preloaded into the
// program (LD_PRELOAD), it samples the main thread every HL_PROFILE_INTERVAL_US microseconds (default
// 200) with a POSIX timer aimed at that thread, takes the stack of each sample, and at exit writes to
// HL_PROFILE_OUT: the samples, then per shared object the samples whose stack passes through it (inclusive) and
// those that stopped in it (self), then the frames of every object by offset (inclusive), to be named later with
// addr2line against the same build. It measures where the time goes; it asserts nothing.
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "hazardlab/environment.hpp"
#include "hazardlab/settings_table.hpp"

namespace {

using hazardlab::setting::kProfileIntervalUs;
using hazardlab::setting::kProfileOut;

long interval_us = 200;
constexpr int kDepth = 48;
constexpr std::size_t kCapacity = 1 << 18;  // samples kept; later ones are counted, not kept

struct Sample {
  int depth;
  std::array<void*, kDepth> frames;
};

Sample* samples = nullptr;
std::atomic<std::size_t> taken{0};
timer_t timer{};

void on_sample(int, siginfo_t*, void*) {
  const std::size_t i = taken.fetch_add(1, std::memory_order_relaxed);
  if (i >= kCapacity) return;
  samples[i].depth = backtrace(samples[i].frames.data(), kDepth);  // frame 0 and 1: this handler and the trampoline
}

void write_profile() {
  timer_delete(timer);
  const std::optional<std::string> out_path = hazardlab::environment_value_given(kProfileOut.name);
  FILE* out = out_path ? std::fopen(out_path->c_str(), "w") : stderr;
  if (out == nullptr) {  // said, never silently dropped; the program's own exit status stays its own
    std::fprintf(stderr, "launching-thread-profiler: cannot write %s=%s: %s\n", std::string(kProfileOut.name).c_str(),
                 out_path->c_str(), std::strerror(errno));
    return;
  }
  const std::size_t n = std::min(taken.load(), kCapacity);
  std::map<std::string, long> inclusive, self;
  std::map<std::pair<std::string, std::uintptr_t>, long> frames;
  for (std::size_t i = 0; i < n; ++i) {
    std::set<std::string> seen_objects;
    std::set<std::pair<std::string, std::uintptr_t>> seen_frames;
    for (int f = 2; f < samples[i].depth; ++f) {
      Dl_info info{};
      if (dladdr(samples[i].frames[f], &info) == 0 || info.dli_fname == nullptr) continue;
      const std::string object = info.dli_fname;
      // A return address points past its call: one byte back names the calling instruction.
      const auto offset = reinterpret_cast<std::uintptr_t>(samples[i].frames[f]) -
                          reinterpret_cast<std::uintptr_t>(info.dli_fbase) - (f > 2 ? 1 : 0);
      if (f == 2) self[object]++;
      if (seen_objects.insert(object).second) inclusive[object]++;
      if (seen_frames.insert({object, offset}).second) frames[{object, offset}]++;
    }
  }
  std::fprintf(out, "samples %zu taken %zu interval_us %ld\n", n, taken.load(), interval_us);
  for (const auto& [object, count] : inclusive)
    std::fprintf(out, "object %s inclusive %ld self %ld\n", object.c_str(), count, self[object]);
  for (const auto& [frame, count] : frames)
    if (count * 200 >= static_cast<long>(n)) std::fprintf(out, "frame %s %#lx %ld\n", frame.first.c_str(), frame.second, count);
  if (out != stderr) std::fclose(out);
}

__attribute__((constructor)) void start() {
  if (!hazardlab::environment_value_given(kProfileOut.name)) return;
  const std::string every = hazardlab::environment_value_given(kProfileIntervalUs.name).value_or("200");
  char* end = nullptr;
  interval_us = std::strtol(every.c_str(), &end, 10);
  if (every.empty() || *end != '\0' || interval_us < 50 || interval_us > 1'000'000) {
    std::fprintf(stderr, "launching-thread-profiler: %s=%s is not allowed: %s\n", std::string(kProfileIntervalUs.name).c_str(),
                 every.c_str(), std::string(kProfileIntervalUs.range).c_str());
    std::exit(2);
  }
  samples = static_cast<Sample*>(std::calloc(kCapacity, sizeof(Sample)));
  if (samples == nullptr) return;
  void* warm[4];
  backtrace(warm, 4);  // loads the unwinder outside the signal handler
  struct sigaction sa {};
  sa.sa_sigaction = on_sample;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, nullptr);
  // The main thread's wall clock, not its CPU clock: CPU-clock timers fire only at the scheduler's tick (4 ms),
  // and a launching thread is busy, so its wall time is its CPU time but for the waits, which the stacks show.
  const clockid_t clock = CLOCK_MONOTONIC;
  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (timer_create(clock, &ev, &timer) != 0) return;
  itimerspec spec{};
  spec.it_interval.tv_sec = spec.it_value.tv_sec = interval_us / 1'000'000;
  spec.it_interval.tv_nsec = spec.it_value.tv_nsec = interval_us % 1'000'000 * 1000;
  timer_settime(timer, 0, &spec, nullptr);
  std::atexit(write_profile);
}

}  // namespace
