#include "conformance_gpu/runner/run_program.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "conformance_gpu/runner/tag_kernels.hpp"
#include "conformance/check/tags.hpp"
#include "conformance/schedule/predict.hpp"
#include "cuda/check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/host_memory.hpp"
#include "cuda/kernel_loading.hpp"
#include "cuda/stream.hpp"
#include "hold/gate.hpp"

namespace hazardlab::conformance {
namespace {

constexpr std::size_t kBytes = kWords * sizeof(std::uint32_t);

// A host function's buffers: it must not call CUDA, so it only reads and writes host memory.
struct HostOp {
  const std::uint32_t* read = nullptr;
  std::vector<std::uint32_t> seen = std::vector<std::uint32_t>(kWords);
  std::uint32_t* write = nullptr;
  std::uint32_t tag = 0;
};

// The streams every program runs on, made once. A GPU has a few hardware queues (8 by default) that
// streams are spread over as they are made; a stream made for each program sooner or later shares one
// with another, and then waits for work the rules do not order it after: on an H100 a cudaMemcpy on the
// legacy stream waited for a gate closed on a non-blocking stream (seed 1240139627), and a synchronize
// of a blocking stream waited for a legacy-stream gate that the same call alone never waited for. These
// few streams, made first, each get their own.
struct StreamPool {
  std::vector<Stream> blocking, non_blocking;
  Stream reader{hazardlab::StreamKind::NonBlocking};  // the host's reads of device buffers
  HostBuffer read_back{HostMemoryKind::Pinned, kWords * sizeof(std::uint32_t)};
  cudaStream_t take(StreamKind kind, std::size_t index) {
    std::vector<Stream>& streams = kind == StreamKind::Blocking ? blocking : non_blocking;
    while (streams.size() <= index)
      streams.emplace_back(kind == StreamKind::Blocking ? hazardlab::StreamKind::Blocking
                                                        : hazardlab::StreamKind::NonBlocking);
    return streams[index].get();
  }
};

StreamPool& stream_pool() {
  static StreamPool* pool = new StreamPool;  // kept to the end: destroying streams after CUDA's teardown fails
  return *pool;
}

void CUDART_CB run_host_op(void* data) {
  auto* op = static_cast<HostOp*>(data);
  if (op->read != nullptr) std::copy(op->read, op->read + kWords, op->seen.begin());
  if (op->write != nullptr) std::fill(op->write, op->write + kWords, op->tag);
}

class Runner {
 public:
  Runner(const Program& p, const RunLimits& limits, std::uint32_t nonce)
      : run_{p, {}, false}, limits_(limits), tags_{run_.executed, nonce} {}
  Run execute();

 private:
  std::uint32_t* ptr(BufferId b) const { return static_cast<std::uint32_t*>(pointers_[b]); }
  cudaStream_t stream(StreamId s) const { return s == kLegacyStream ? cudaStreamLegacy : streams_[s - 1]; }
  void allocate();
  void issue(CommandIndex k, const Command& c);
  // Decodes the words read `k` found in buffer `b`, and keeps the first few distinct raw words for a report.
  void observe(CommandIndex k, BufferId b, const std::uint32_t* words) {
    std::set<ValueId>& values = run_.observation.reads[{k, b}];
    std::set<std::uint32_t>& raw = run_.observation.raw_words[{k, b}];
    for (std::size_t i = 0; i < kWords; ++i) {
      values.insert(tags_.decode(words[i]));
      if (raw.size() < 8) raw.insert(words[i]);
    }
  }
  // The stream work before command `k` whose completion event has been reached (nothing waits here).
  std::set<CommandIndex> finished_before(CommandIndex k) {
    std::set<CommandIndex> finished;
    for (CommandIndex j = 0; j < k; ++j)
      if (done_[j] && done_[j]->query()) finished.insert(j);
    return finished;
  }

  Run run_;
  RunLimits limits_;
  Tags tags_;
  std::vector<cudaStream_t> streams_;  // the pool's (stream_pool), by StreamId - 1
  std::vector<Event> events_;
  std::vector<std::optional<Event>> done_;  // recorded after each command's stream work
  std::vector<HostBuffer> host_;
  std::vector<DeviceBuffer> device_;
  std::vector<void*> pointers_;
  std::vector<std::unique_ptr<Gate>> gates_;
  std::vector<std::unique_ptr<Gate>> all_gates_;  // kept until the end, to ask whether one timed out
  std::map<CommandIndex, DeviceBuffer> kernel_seen_;
  std::map<CommandIndex, std::unique_ptr<HostOp>> host_ops_;
};

void Runner::allocate() {
  const Program& p = run_.executed;
  std::size_t used[2] = {0, 0};  // blocking, non-blocking
  for (StreamId s = 1; s < p.stream_count(); ++s) {
    const bool blocking = p.stream_kind(s) == StreamKind::Blocking;
    streams_.push_back(stream_pool().take(p.stream_kind(s), used[blocking ? 0 : 1]++));
  }
  for (std::size_t e = 0; e < p.event_count(); ++e) events_.emplace_back();
  done_.resize(p.commands().size());
  for (BufferId b = 0; b < p.buffer_count(); ++b) {
    if (p.buffer_kind(b) == BufferKind::Device) {
      device_.emplace_back(kBytes);
      pointers_.push_back(device_.back().data());
      enqueue_fill(ptr(b), tags_.initial(b), cudaStreamLegacy);
    } else {
      host_.emplace_back(p.buffer_kind(b) == BufferKind::HostPinned ? HostMemoryKind::Pinned : HostMemoryKind::Pageable,
                         kBytes);
      pointers_.push_back(host_.back().data());
      std::fill(ptr(b), ptr(b) + kWords, tags_.initial(b));
    }
  }
  HL_CUDA(cudaDeviceSynchronize());
}

Run Runner::execute() {
  allocate();
  const auto& commands = run_.executed.commands();
  for (CommandIndex k = 0; k < commands.size(); ++k) {
    const Command c = commands[k];
    const bool host_only = c.kind == CommandKind::HostWrite || c.kind == CommandKind::GateOpen ||
                           (c.kind == CommandKind::HostRead && is_host_buffer(run_.executed.buffer_kind(c.reads[0])));
    std::vector<std::unique_ptr<Watchdog>> watchdogs;
    if (!host_only)
      for (auto& gate : gates_)
        if (gate) watchdogs.push_back(std::make_unique<Watchdog>(*gate, limits_.call_limit));
    issue(k, c);
    if (watchdogs.empty()) continue;
    bool blocked = false;
    for (auto& w : watchdogs) blocked = w->disarm() || blocked;
    run_.observation.blocked[k] = blocked;
    // The gates open while the call waits; the program goes on with all of them open. A call the generator
    // made to wait (watchdog_opened already set) that returned at once, as a deviation allows, is followed
    // by the same opening: the program goes on as it was made, and the models see the gates open from here
    // (without it, a later drain waited for a gate the model took as open; seed 2188058342 on an H100).
    if (!blocked && !c.watchdog_opened) continue;
    run_.executed.set_watchdog_opened(k);
    for (auto& gate : gates_) {
      if (!gate) continue;
      gate->open(GateOpener::Host);
      all_gates_.push_back(std::move(gate));
    }
  }
  for (const auto& [k, seen] : kernel_seen_) {
    std::vector<std::uint32_t> words(kWords);
    HL_CUDA(cudaMemcpy(words.data(), seen.data(), kBytes, cudaMemcpyDeviceToHost));
    observe(k, commands[k].reads[0], words.data());
  }
  for (const auto& [k, op] : host_ops_)
    if (op->read != nullptr) observe(k, commands[k].reads[0], op->seen.data());
  for (const auto& gate : all_gates_) run_.gate_timed_out = run_.gate_timed_out || gate->timed_out();
  return std::move(run_);
}

void Runner::issue(CommandIndex k, const Command& c) {
  const cudaStream_t s = stream(c.stream);
  const std::uint32_t* read = c.reads.empty() ? nullptr : ptr(c.reads[0]);
  std::uint32_t* write = c.writes.empty() ? nullptr : ptr(c.writes[0]);
  bool stream_work = true;
  switch (c.kind) {
    case CommandKind::HostWrite:
      std::fill(write, write + kWords, tags_.write(k));
      return;
    case CommandKind::HostRead:
      if (is_host_buffer(run_.executed.buffer_kind(c.reads[0]))) {
        observe(k, c.reads[0], read);
      } else {
        // Through a non-blocking stream of its own, so that the read is what the model says it is: a look at
        // the buffer now, ordered after nothing. A cudaMemcpy would run on the legacy stream and wait for
        // its work and for blocking streams' work (rule 2), a closed gate included.
        StreamPool& pool = stream_pool();
        auto* words = reinterpret_cast<std::uint32_t*>(pool.read_back.data());
        HL_CUDA(cudaMemcpyAsync(words, read, kBytes, cudaMemcpyDeviceToHost, pool.reader.get()));
        HL_CUDA(cudaStreamSynchronize(pool.reader.get()));
        observe(k, c.reads[0], words);
      }
      return;
    case CommandKind::MemcpyAsync:
      HL_CUDA(cudaMemcpyAsync(write, read, kBytes, cudaMemcpyDefault, s));
      break;
    case CommandKind::Memcpy:
      HL_CUDA(cudaMemcpy(write, read, kBytes, cudaMemcpyDefault));
      break;
    case CommandKind::MemsetAsync:
      HL_CUDA(cudaMemsetAsync(write, Tags::memset_byte(k), kBytes, s));
      break;
    case CommandKind::Kernel: {
      std::uint32_t* seen = nullptr;
      if (read != nullptr)
        seen = reinterpret_cast<std::uint32_t*>(kernel_seen_.emplace(k, DeviceBuffer(kBytes)).first->second.data());
      enqueue_kernel_op(read, seen, write, tags_.write(k), s);
      break;
    }
    case CommandKind::HostFunc: {
      auto& op = host_ops_[k];
      op = std::make_unique<HostOp>();
      op->read = read;
      op->write = write;
      op->tag = tags_.write(k);
      HL_CUDA(cudaLaunchHostFunc(s, run_host_op, op.get()));
      break;
    }
    case CommandKind::EventRecord:
      HL_CUDA(cudaEventRecord(events_[c.event].get(), s));
      break;
    case CommandKind::StreamWaitEvent:
      HL_CUDA(cudaStreamWaitEvent(s, events_[c.event].get(), 0));
      break;
    case CommandKind::EventSynchronize:
      HL_CUDA(cudaEventSynchronize(events_[c.event].get()));
      return;
    case CommandKind::StreamSynchronize:
      HL_CUDA(cudaStreamSynchronize(s));
      return;
    case CommandKind::DeviceSynchronize:
      HL_CUDA(cudaDeviceSynchronize());
      return;
    case CommandKind::EventQuery: {
      const cudaError_t answer = cudaEventQuery(events_[c.event].get());
      if (answer != cudaErrorNotReady) HL_CUDA(answer);
      run_.executed.set_observed_complete(k, answer == cudaSuccess);
      return;
    }
    case CommandKind::StreamQuery: {
      const cudaError_t answer = cudaStreamQuery(s);
      if (answer != cudaErrorNotReady) HL_CUDA(answer);
      run_.executed.set_observed_complete(k, answer == cudaSuccess);
      return;
    }
    case CommandKind::GateClose:
      if (gates_.size() <= c.gate) gates_.resize(c.gate + 1);
      gates_[c.gate] =
          close_gate(c.gate_style == GateStyle::HostFunction ? GateKind::HostFunction : GateKind::SpinKernel, s,
                     limits_.gate_timeout);
      break;
    case CommandKind::GateOpen:
      // What finished while the gate was still closed: work the model holds behind it must not have.
      run_.observation.finished_at_gate_open[k] = finished_before(k);
      if (c.gate < gates_.size() && gates_[c.gate]) {
        gates_[c.gate]->open(GateOpener::Host);
        all_gates_.push_back(std::move(gates_[c.gate]));
      }
      return;
    case CommandKind::Drain: {
      // Waits for what the full model says is not behind a closed gate, then sees what has finished.
      for (CommandIndex j : drain_waits_for(run_.executed.prefix(k + 1)))
        if (done_[j]) done_[j]->synchronize();
      run_.observation.finished_at_drain[k] = finished_before(k);
      return;
    }
  }
  if (stream_work && completion_is_observed(c.kind)) {
    done_[k].emplace();
    done_[k]->record(c.kind == CommandKind::Memcpy ? cudaStreamLegacy : s);
  }
}

}  // namespace

Run run_program(const Program& program, const RunLimits& limits, std::uint32_t nonce) {
  return Runner(program, limits, nonce & 0xFFFU).execute();
}

void prepare_runner() {
  load_harness_kernels();
  // The programs' streams (at most two of each kind) first, so that each has a hardware queue of its own.
  StreamPool& pool = stream_pool();
  for (std::size_t i = 0; i < 2; ++i) {
    pool.take(StreamKind::Blocking, i);
    pool.take(StreamKind::NonBlocking, i);
  }
}

}  // namespace hazardlab::conformance
