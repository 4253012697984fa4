// What the checker's own bookkeeping costs a launch-heavy loop, without a GPU: the driver calls of
// check-launch-overhead's step (two streams; on each, a wait for the other's event, a kernel touching three
// buffers, an event recorded), played into the Checker as the injected library plays them, each kernel's site
// taken as the injected library takes it (its native stack, from a few frames deep). Every 250 steps both
// streams are synchronized, as the loop drains. Prints nanoseconds per launch; run it under `perf record` or
// `valgrind --tool=callgrind` for where they go. On a GPU, check-launch-overhead measures the whole path.
//
//   launch-path-benchmark [--steps N] [--depth FRAMES]
//
// Exit 1 when a race is reported (the loop is correct: a finding would be a false alarm and the figure of
// another path). Bad arguments: exit 2.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <vector>

#include "checker/fault/call_stack.hpp"
#include "checker/fault/fault_handler.hpp"
#include "hazardlab/fnv1a.hpp"
#include "hazardlab/number_option.hpp"
#include "hazardlab/run_main.hpp"

namespace {

using namespace hazardlab::check;

constexpr std::uintptr_t kBuffer = 0x7f0000000000, kBytes = 4096 * sizeof(float);
constexpr std::uintptr_t kInput = kBuffer, kWeight = kBuffer + kBytes, kTotal = kBuffer + 2 * kBytes;
constexpr std::uintptr_t kSlot[2] = {kBuffer + 3 * kBytes, kBuffer + 4 * kBytes};

SiteId native_site() {
  std::uintptr_t frames[kMaxSiteFrames];
  const int n = capture_stack(frames, kMaxSiteFrames);
  return site_of(frames, n);
}

// `depth` frames of the program between the loop and the checker, as a program's own calls and the driver's are.
__attribute__((noinline)) SiteId site_at_depth(int depth) {
  if (depth <= 0) return native_site();
  const SiteId s = site_at_depth(depth - 1);
  asm volatile("" ::: "memory");  // not a tail call: each level stays a frame
  return s;
}

DeviceRange range(std::uintptr_t begin, DeviceAccessKind kind) { return DeviceRange{begin, begin + kBytes, kind}; }

int run(long steps, int depth) {
  HostPageProtector protector;
  protector.play_keys(1, 2, 2688, {3, 4, 5, 6, 7, 8, 9, 10});
  Checker checker{protector};
  const StreamKey compute{1, 0x1000}, update{1, 0x2000};
  checker.stream_created(compute, StreamKind::NonBlocking);
  checker.stream_created(update, StreamKind::NonBlocking);
  const std::uint64_t produced[2] = {0x10, 0x11}, consumed[2] = {0x20, 0x21};
  for (std::uint64_t e : {produced[0], produced[1], consumed[0], consumed[1]}) checker.event_created(e);
  auto site = [depth] { return site_at_depth(depth); };
  std::size_t races = 0;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  for (long step = 0; step < steps; ++step) {
    const int s = static_cast<int>(step % 2);
    if (step >= 2) checker.stream_waited_event(compute, consumed[s]);
    checker.device_work(compute, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel,
                                                {range(kInput, DeviceAccessKind::Read), range(kWeight, DeviceAccessKind::Read),
                                                 range(kSlot[s], DeviceAccessKind::MayWrite)}, "forward"},
                        site);
    checker.event_recorded(produced[s], compute);
    checker.stream_waited_event(update, produced[s]);
    checker.device_work(update, DeviceWorkItem{"cuLaunchKernel", DeviceWorkKind::Kernel,
                                               {range(kSlot[s], DeviceAccessKind::Read), range(kTotal, DeviceAccessKind::MayWrite)},
                                               "accumulate"},
                        site);
    checker.event_recorded(consumed[s], update);
    races += checker.take_races().size();
    if ((step + 1) % 250 == 0) {
      checker.stream_synchronized(compute);
      checker.stream_synchronized(update);
    }
  }
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  std::printf("%.0f ns per launch with its event wait and record (%ld launches, sites %d frames deep)\n",
              ns / (2.0 * static_cast<double>(steps)), 2 * steps, depth);
  if (races != 0) {
    std::fprintf(stderr, "launch-path-benchmark: %zu race(s) reported in a correct loop\n", races);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The checker's bookkeeping of a launch-heavy loop on two streams, timed without a GPU"};
  long steps = 100000;
  int depth = 12;
  app.add_option("--steps", steps, "steps of two launches")->transform(hazardlab::cli::whole_number(250, 100000000));
  app.add_option("--depth", depth, "frames between the loop and the site's capture")
      ->transform(hazardlab::cli::whole_number(0, 64));
  return hazardlab::run_main("launch-path-benchmark", app, argc, argv, [&] { return run(steps, depth); });
}
