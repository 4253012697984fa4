// Hazard: timing an asynchronous copy with a host clock, without synchronizing, measures how long
// the call took to queue the copy, not the copy. The "bandwidth" it implies can exceed what the
// PCIe link can physically carry.
#include <chrono>
#include <cstdio>

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

enum class Clock { HostUnsynchronized, HostAfterSynchronize, Events };

double gbps(std::size_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 1e30;
}

TrialObservation time_copy(Rig& rig, const TrialCase& c, Clock clock, const TrialSettings& s) {
  const double link = rig.device_info().pcie.max_raw_gbps_per_direction();
  Stream stream(c.stream);
  const std::span<std::byte> source = rig.host_region(c);
  fill_pattern(source, c.pattern, PatternVersion::Original);
  HL_CUDA(cudaDeviceSynchronize());

  TrialObservation obs;
  Event start(cudaEventDefault), stop(cudaEventDefault);
  double seconds = 0;
  bool finished = false;
  bool readable = true;
  {
    // Unsynchronized: the stream stays closed until the host has stopped its clock.
    HeldStream held(c.hold(s), stream.get(),
                    clock == Clock::HostUnsynchronized ? FenceKind::None : FenceKind::EventSynchronize);
    start.record(stream.get());
    std::chrono::steady_clock::time_point t0, call_returned;
    obs.call_blocked = held.issue([&] {
      t0 = std::chrono::steady_clock::now();  // the clock starts right at the call, as a benchmark's would
      HL_CUDA(cudaMemcpyAsync(rig.device().data(), source.data(), c.bytes, cudaMemcpyHostToDevice, stream.get()));
      call_returned = std::chrono::steady_clock::now();
    });
    stop.record(stream.get());
    if (clock == Clock::HostAfterSynchronize) s.guard().fence(FenceKind::StreamSynchronize, stream.get());
    if (clock == Clock::Events) s.guard().host_waits_for(stop);
    const auto t1 = clock == Clock::HostUnsynchronized ? call_returned : std::chrono::steady_clock::now();
    finished = stop.query();
    if (clock == Clock::Events) {
      float ms = 0;
      const cudaError_t rc = cudaEventElapsedTime(&ms, start.get(), stop.get());
      readable = rc == cudaSuccess;
      if (rc == cudaErrorNotReady)
        (void)cudaGetLastError();
      else
        HL_CUDA(rc);
      seconds = ms / 1e3;
    } else {
      seconds = std::chrono::duration<double>(t1 - t0).count();
    }
    obs.gate_timed_out = held.release_and_drain(stream.get());
  }
  const double implied = gbps(c.bytes, seconds);
  char text[200];
  std::snprintf(text, sizeof text, "%zu B timed at %.1f us: %.1f GB/s against a link of %.1f GB/s; the copy had %s",
                c.bytes, seconds * 1e6, implied, link, finished ? "completed" : "not run yet");
  obs.detail = readable ? text : "the stop event had not completed: cudaEventElapsedTime has nothing to read";
  obs.hazard_visible = !finished && implied > link;
  obs.data_correct = readable && finished && implied <= link;
  obs.seen.original = obs.data_correct ? 1 : 0;
  return obs;
}

Requirement requires_known_link() {
  return {"a PCIe link whose rate NVML reports", [](const DeviceFingerprint& d) {
            if (d.integrated) return std::string("an integrated GPU has no PCIe link to bound a copy's speed");
            if (d.pcie.max_raw_gbps_per_direction() <= 0) {
              return "the PCIe link rate is unknown (" + d.pcie.unavailable_reason + "), so no speed is impossible";
            }
            return std::string();
          }};
}

Hazard host_timer_async_copy() {
  CaseSpace control;
  control.min_bytes = std::size_t{16} << 20;  // large enough that queuing is far faster than the link
  control.streams = {StreamKind::Blocking, StreamKind::NonBlocking, StreamKind::Legacy};
  CaseSpace timed = control;
  timed.min_bytes = std::size_t{1} << 20;  // event and clock resolution make smaller copies meaningless
  const auto with = [](Clock clock) -> TrialFn {
    return [clock](Rig& rig, const TrialCase& c, const TrialSettings& s) { return time_copy(rig, c, clock, s); };
  };
  return Hazard{
      .id = "host-timer-async-copy",
      .title = "A host clock around cudaMemcpyAsync measures the call, not the copy",
      .rules = {{"CUDA C++ Best Practices Guide", "Using CPU Timers",
                 "CUDA calls can return before the work is done: synchronize the device immediately before "
                 "starting and before stopping a CPU timer."},
                {"CUDA C++ Best Practices Guide", "Using CUDA GPU Timers",
                 "Events recorded in the stream around the work, read with cudaEventElapsedTime after the "
                 "stop event has completed, time the work itself."}},
      .requirements = {requires_known_link()},
      .explanation =
          "cudaMemcpyAsync from pinned memory returns as soon as the copy is queued, so a host clock read "
          "around the call measures microseconds of queuing. Benchmarks that do this (the seed notebook "
          "reported 0.0002 s for a 400 MB copy) report speeds no PCIe link can carry. The positive control "
          "holds the stream closed while the host times the call: the implied bandwidth exceeds the link's "
          "raw rate (from NVML) while the copy has not even started. Two guards measure honestly: events "
          "recorded in the stream around the copy and read after cudaEventSynchronize, or a host clock "
          "stopped after cudaStreamSynchronize. Their figure can never beat the link; the suite checks "
          "that bound only, never a minimum speed.",
      .variants = {make_variant(VariantKind::Control, "unsafe-host-timer-without-sync",
                                "host clock around cudaMemcpyAsync, read without synchronizing", control,
                                with(Clock::HostUnsynchronized)),
                   make_variant(VariantKind::Guard, "events-in-stream",
                                "cudaEventRecord around the copy, cudaEventSynchronize, cudaEventElapsedTime", timed,
                                with(Clock::Events)),
                   make_variant(VariantKind::Guard, "host-timer-after-synchronize",
                                "host clock stopped after cudaStreamSynchronize", timed,
                                with(Clock::HostAfterSynchronize))},
      .pytorch = R"py(t0 = time.perf_counter()
y = x.to("cuda", non_blocking=True)
dt = time.perf_counter() - t0         # the call, not the copy
# fix: start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True);
#      record both around the copy, end.synchronize(), then start.elapsed_time(end))py",
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::host_timer_async_copy)
