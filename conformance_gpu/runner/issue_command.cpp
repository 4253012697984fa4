// One command of a program issued on the GPU or the host as the program says, with what it needs to be observed:
// a read's words, a gate closed or opened, the completion events of stream work, a query's answer.
#include <algorithm>

#include "conformance/schedule/predict.hpp"
#include "conformance_gpu/runner/runner.hpp"
#include "conformance_gpu/runner/stream_pool.hpp"
#include "conformance_gpu/runner/tag_kernels.hpp"
#include "cuda/check.hpp"

namespace hazardlab::conformance {
namespace {

void CUDART_CB run_host_op(void* data) {
  auto* op = static_cast<HostOp*>(data);
  if (op->read != nullptr) std::copy(op->read, op->read + kWords, op->seen.begin());
  if (op->write != nullptr) std::fill(op->write, op->write + kWords, op->tag);
}

}  // namespace

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

}  // namespace hazardlab::conformance
