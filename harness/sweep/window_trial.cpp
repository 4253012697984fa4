#include "sweep/window_trial.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "cuda/check.hpp"
#include "cuda/stream.hpp"
#include "hold/sleep.hpp"
#include "sweep/cycle_sleep.hpp"

namespace hazardlab {
namespace {

// One value per role, so that any byte tells where it came from.
constexpr unsigned char kOriginal = 0x5a;  // the data the copy should deliver
constexpr unsigned char kMutated = 0x00;   // the host's later rewrite (the tutorial zeroes)
constexpr unsigned char kSentinel = 0xc3;  // what a destination held before

bool all_original(const std::byte* data, std::size_t bytes) {
  return std::all_of(data, data + bytes, [](std::byte b) { return b == std::byte{kOriginal}; });
}

// Events around the sleep: what the delay ahead of the racing work really was.
class TimedDelay {
 public:
  TimedDelay(cudaStream_t stream, std::chrono::nanoseconds delay) : start_(cudaEventDefault), end_(cudaEventDefault) {
    start_.record(stream);
    if (delay.count() > 0) enqueue_sleep(stream, delay);
    end_.record(stream);
  }
  double achieved_us() {
    end_.synchronize();
    float ms = 0;
    HL_CUDA(cudaEventElapsedTime(&ms, start_.get(), end_.get()));
    return ms * 1000.0;
  }

 private:
  Event start_, end_;
};

WindowTrialOutcome mutate_source(WindowRig& rig, const WindowTrialCase& c) {
  Stream stream(StreamKind::Blocking);
  std::memset(rig.host.data(), kOriginal, c.bytes);
  HL_CUDA(cudaMemsetAsync(rig.device.data(), kSentinel, c.bytes, stream.get()));
  HL_CUDA(cudaStreamSynchronize(stream.get()));
  TimedDelay delay(stream.get(), c.delay);
  HL_CUDA(cudaMemcpyAsync(rig.device.data(), rig.host.data(), c.bytes, cudaMemcpyHostToDevice, stream.get()));
  if (c.sleep_cycles_after > 0) enqueue_cycle_sleep(stream.get(), c.sleep_cycles_after);
  if (c.action == HostAction::RewriteOneByte)
    *reinterpret_cast<volatile unsigned char*>(rig.host.data()) = kMutated;
  else
    std::memset(rig.host.data(), kMutated, c.bytes);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  HL_CUDA(cudaStreamSynchronize(stream.get()));
  HL_CUDA(cudaMemcpy(rig.readback.data(), rig.device.data(), c.bytes, cudaMemcpyDeviceToHost));
  return {!all_original(rig.readback.data(), c.bytes), delay.achieved_us()};
}

WindowTrialOutcome read_destination(WindowRig& rig, const WindowTrialCase& c) {
  Stream stream(StreamKind::Blocking);
  HL_CUDA(cudaMemsetAsync(rig.device.data(), kOriginal, c.bytes, stream.get()));
  std::memset(rig.host.data(), kSentinel, c.bytes);
  HL_CUDA(cudaStreamSynchronize(stream.get()));
  TimedDelay delay(stream.get(), c.delay);
  HL_CUDA(cudaMemcpyAsync(rig.host.data(), rig.device.data(), c.bytes, cudaMemcpyDeviceToHost, stream.get()));
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the reads below happen now, before the synchronize
  const bool stale = c.action == HostAction::ReadOneByte
                         ? *reinterpret_cast<volatile unsigned char*>(rig.host.data()) != kOriginal
                         : !all_original(rig.host.data(), c.bytes);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  HL_CUDA(cudaStreamSynchronize(stream.get()));
  return {stale, delay.achieved_us()};
}

// A producer writes the device buffer (after the delay); a copy on another stream, queued right
// after it with no event between them, reads it back. Stale data: the consumer ran first.
WindowTrialOutcome consume_across_streams(WindowRig& rig, const WindowTrialCase& c, StreamKind producer_kind,
                                          StreamKind consumer_kind) {
  Stream producer(producer_kind), consumer(consumer_kind);
  HL_CUDA(cudaMemsetAsync(rig.device.data(), kSentinel, c.bytes, producer.get()));
  std::memset(rig.host.data(), kSentinel, c.bytes);
  HL_CUDA(cudaStreamSynchronize(producer.get()));
  TimedDelay delay(producer.get(), c.delay);
  HL_CUDA(cudaMemsetAsync(rig.device.data(), kOriginal, c.bytes, producer.get()));
  HL_CUDA(cudaMemcpyAsync(rig.host.data(), rig.device.data(), c.bytes, cudaMemcpyDeviceToHost, consumer.get()));
  HL_CUDA(cudaStreamSynchronize(consumer.get()));
  HL_CUDA(cudaStreamSynchronize(producer.get()));
  return {!all_original(rig.host.data(), c.bytes), delay.achieved_us()};
}

}  // namespace

WindowRig::WindowRig(RaceShape shape, std::size_t max_bytes)
    : host(kWindowHostMemory, max_bytes),
      device(max_bytes),
      readback(kWindowHostMemory, shape == RaceShape::MutatePinnedSourceAfterH2D ? max_bytes : 1) {}

WindowTrialOutcome run_window_trial(RaceShape shape, WindowRig& rig, const WindowTrialCase& c) {
  switch (shape) {
    case RaceShape::MutatePinnedSourceAfterH2D:
      return mutate_source(rig, c);
    case RaceShape::ReadPinnedDestinationEarly:
      return read_destination(rig, c);
    case RaceShape::LegacyProducerNonBlockingConsumer:
      return consume_across_streams(rig, c, StreamKind::Legacy, StreamKind::NonBlocking);
    case RaceShape::TwoStreamsNoEvent:
      break;
  }
  // Two non-blocking streams, as torch.cuda.Stream() creates them.
  return consume_across_streams(rig, c, StreamKind::NonBlocking, StreamKind::NonBlocking);
}

}  // namespace hazardlab
