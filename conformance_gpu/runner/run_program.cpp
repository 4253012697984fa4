// A program run and observed (run_program.hpp): its buffers, streams and events made, its commands issued one by
// one (issue_command.cpp) with watchdogs on the gates still closed, and what each read found collected.
#include "conformance_gpu/runner/run_program.hpp"

#include <algorithm>
#include <memory>

#include "conformance_gpu/runner/runner.hpp"
#include "conformance_gpu/runner/stream_pool.hpp"
#include "conformance_gpu/runner/tag_kernels.hpp"
#include "cuda/check.hpp"
#include "cuda/kernel_loading.hpp"

namespace hazardlab::conformance {

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
