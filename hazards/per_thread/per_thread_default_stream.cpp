// Hazard: code built with per-thread default streams (nvcc --default-stream per-thread, or
// CUDA_API_PER_THREAD_DEFAULT_STREAM=1) gives every host thread its own "stream 0". Work that
// two threads put on "the default stream" is no longer ordered.
#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
#error "build this file with CUDA_API_PER_THREAD_DEFAULT_STREAM=1: it is its own target in hazards/CMakeLists.txt"
#endif

#include "hazard/define.hpp"

namespace hazardlab {
namespace {

// In this file, stream 0 in a CUDA call is the calling thread's own default stream.
constexpr cudaStream_t kDefaultStream = nullptr;

enum class Consumer {
  OwnDefaultStream,     // the other thread's stream 0
  WaitOnProducerEvent,  // the other thread's stream 0, after cudaStreamWaitEvent on the producer's event
  LegacyStream,         // cudaStreamLegacy, which still orders with every per-thread default stream
};

TrialObservation other_thread_consumes(Rig& rig, const TrialCase& base, Consumer consumer, const TrialSettings& s) {
  TrialCase c = base;
  c.pattern.family = PatternFamily::Constant;  // the producer is a memset
  const int value = pattern_byte(c.pattern, PatternVersion::Original, 0);
  std::byte* data = rig.device().data();
  std::byte* copy = rig.device_scratch().data();
  HL_CUDA(cudaMemsetAsync(data, pattern_byte(c.pattern, PatternVersion::Sentinel, 0), c.bytes, kDefaultStream));
  HL_CUDA(cudaMemsetAsync(copy, pattern_byte(c.pattern, PatternVersion::Mutated, 0), c.bytes, kDefaultStream));
  HL_CUDA(cudaStreamSynchronize(kDefaultStream));

  const bool first = consumer == Consumer::OwnDefaultStream;
  Event produced;
  // Thread B uses its own stream 0 once before anything is held: the first use of a thread's
  // per-thread default stream creates it, and that may wait for the device.
  OtherThread thread_b(
      rig.device_info().index, [] { return cudaStreamSynchronize(kDefaultStream); },
      [&]() -> cudaError_t {
        const cudaStream_t stream = consumer == Consumer::LegacyStream ? cudaStreamLegacy : kDefaultStream;
        if (consumer == Consumer::WaitOnProducerEvent) {
          const cudaError_t rc = s.guard().stream_waits_for_or_error(stream, produced);
          if (rc != cudaSuccess) return rc;
        }
        const cudaError_t rc = cudaMemcpyAsync(copy, data, c.bytes, cudaMemcpyDeviceToDevice, stream);
        return rc == cudaSuccess ? cudaStreamSynchronize(stream) : rc;
      });

  TrialObservation obs;
  {
    // Thread A's stream 0 is cudaStreamPerThread: hold it closed and queue the producer behind it.
    HeldStream held(c.hold(s), cudaStreamPerThread, first ? FenceKind::None : FenceKind::EventSynchronize);
    HL_CUDA(cudaMemsetAsync(data, value, c.bytes, kDefaultStream));
    // Recorded here, not through a library call: code compiled without per-thread default streams
    // reads stream 0 as the legacy stream, which would wait for the held stream and, being the
    // legacy stream, hold up the other thread's stream 0 too.
    HL_CUDA(cudaEventRecord(produced.get(), kDefaultStream));
    thread_b.go();
    const auto window = first ? std::chrono::duration_cast<std::chrono::microseconds>(s.call_limit)
                              : std::chrono::microseconds(c.gate_delay_us);
    obs.detail = thread_b.finishes_within(window)
                     ? "the other thread's copy finished while this thread's stream 0 was held"
                     : "the other thread's copy waited for this thread's stream 0";
    obs.gate_timed_out = held.release_and_drain(cudaStreamPerThread);
  }
  HL_CUDA(thread_b.join());
  obs.seen = rig.census_of_device(copy, c);
  obs.hazard_visible = obs.seen.sentinel > 0;
  obs.data_correct = obs.seen.all_original();
  return obs;
}

TrialFn consumed_by(Consumer consumer) {
  return [consumer](Rig& rig, const TrialCase& c, const TrialSettings& s) {
    return other_thread_consumes(rig, c, consumer, s);
  };
}

Hazard per_thread_default_stream() {
  CaseSpace space;
  space.streams = {StreamKind::PerThread};
  return Hazard{
      .id = "per-thread-default-stream",
      .title = "With per-thread default streams, two host threads' stream 0 do not order each other",
      .rules = {{"CUDA Runtime API reference", "Stream synchronization behavior",
                 "The per-thread default stream is distinct for each host thread and does not synchronize "
                 "with other streams like the legacy default stream does; it still synchronizes with the "
                 "legacy default stream."},
                {"CUDA C++ Programming Guide", "Default Stream",
                 "Per-thread default streams are enabled by compiling with --default-stream per-thread or "
                 "defining CUDA_API_PER_THREAD_DEFAULT_STREAM before including CUDA headers; the macro has no "
                 "effect on code nvcc compiles itself."}},
      .requirements = {},
      .explanation =
          "Much CUDA code relies on stream 0 without saying so: everything goes to the default stream, "
          "so everything is ordered. Built with per-thread default streams, each host thread has a stream 0 "
          "of its own, and a producer on one thread's stream 0 and a consumer on another thread's stream 0 "
          "run in any order. This case is its own build target with CUDA_API_PER_THREAD_DEFAULT_STREAM=1. "
          "The positive control holds the producing thread's stream 0 closed and lets a second thread copy "
          "the buffer on its stream 0: the copy reads stale data. An event recorded by the producer and "
          "waited on by the consumer orders them (the guard). A consumer on cudaStreamLegacy waits, because "
          "per-thread default streams still synchronize with the legacy stream (the rule). The flag is per "
          "translation unit: a library compiled without it reads a stream argument of 0 as the legacy stream, "
          "so passing 0 across that boundary silently brings back legacy-stream ordering; pass "
          "cudaStreamPerThread explicitly instead.",
      .variants = {make_variant(VariantKind::Control, "unsafe-two-threads-stream-zero",
                                "producer on thread A's stream 0, consumer on thread B's stream 0", space,
                                consumed_by(Consumer::OwnDefaultStream)),
                   make_variant(VariantKind::Guard, "stream-wait-event",
                                "thread B's stream 0 waits on an event thread A recorded after the producer", space,
                                consumed_by(Consumer::WaitOnProducerEvent)),
                   make_variant(VariantKind::Rule, "legacy-stream-still-orders",
                                "consumer on cudaStreamLegacy: it waits for thread A's per-thread stream", space,
                                consumed_by(Consumer::LegacyStream))},
  };
}

}  // namespace
}  // namespace hazardlab

HAZARDLAB_REGISTER_HAZARD(hazardlab::per_thread_default_stream)
