#include "hold/gate.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "cuda/check.hpp"
#include "cuda/host_memory.hpp"
#include "hold/spin_gate.cuh"

namespace hazardlab {
namespace {

void announce_timeout(GateKind kind, std::chrono::milliseconds timeout) {
  std::fprintf(stderr,
               "\nhazardlab: GATE TIMEOUT: a %s gate held its stream closed for %lld ms and nobody opened it.\n"
               "hazardlab: The host side of the trial is stuck or never released the gate; the gate is opening\n"
               "hazardlab: itself so that the stream can drain. The trial is inconclusive.\n\n",
               std::string(to_string(kind)).c_str(), static_cast<long long>(timeout.count()));
}

// Records who opened a gate first.
class OpenerRecord {
 public:
  bool claim(GateOpener who) {
    std::lock_guard lock(mutex_);
    if (opener_ != GateOpener::NotYet) return false;
    opener_ = who;
    return true;
  }
  GateOpener get() const {
    std::lock_guard lock(mutex_);
    return opener_;
  }

 private:
  mutable std::mutex mutex_;
  GateOpener opener_ = GateOpener::NotYet;
};

// The stream runs a host function that blocks on a latch until the host opens it.
class HostFunctionGate final : public Gate {
 public:
  HostFunctionGate(cudaStream_t stream, std::chrono::milliseconds timeout) : state_(std::make_shared<State>()) {
    state_->timeout = timeout;
    auto* holder = new std::shared_ptr<State>(state_);
    const cudaError_t rc = cudaLaunchHostFunc(stream, &HostFunctionGate::wait_until_open, holder);
    if (rc != cudaSuccess) {
      delete holder;
      throw_cuda_error(rc, "cudaLaunchHostFunc(stream, wait_until_open, gate)", __FILE__, __LINE__);
    }
  }
  ~HostFunctionGate() override { open(GateOpener::Host); }

  void open(GateOpener who) override {
    {
      std::lock_guard lock(state_->mutex);
      if (state_->opener != GateOpener::NotYet) return;
      state_->opener = who;
    }
    state_->cv.notify_all();
  }
  GateOpener opened_by() const override {
    std::lock_guard lock(state_->mutex);
    return state_->opener;
  }
  bool timed_out() const override { return opened_by() == GateOpener::Timeout; }
  GateKind kind() const noexcept override { return GateKind::HostFunction; }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable cv;
    GateOpener opener = GateOpener::NotYet;
    std::chrono::milliseconds timeout{0};
  };

  // Runs on a CUDA-internal thread: it must make no CUDA calls.
  static void CUDART_CB wait_until_open(void* arg) {
    std::unique_ptr<std::shared_ptr<State>> holder(static_cast<std::shared_ptr<State>*>(arg));
    State& s = **holder;
    std::unique_lock lock(s.mutex);
    if (!s.cv.wait_for(lock, s.timeout, [&] { return s.opener != GateOpener::NotYet; })) {
      s.opener = GateOpener::Timeout;
      announce_timeout(GateKind::HostFunction, s.timeout);
    }
  }

  std::shared_ptr<State> state_;
};

// A one-thread kernel spins on a flag in mapped host memory; the host opens it with a release
// store. The kernel gives up by itself after the timeout, measured with %globaltimer.
class SpinKernelGate final : public Gate {
 public:
  SpinKernelGate(cudaStream_t stream, std::chrono::milliseconds timeout)
      : stream_(stream), timeout_(timeout), memory_(HostMemoryKind::Mapped, sizeof(detail::SpinGateCell)) {
    cell_ = new (memory_.data()) detail::SpinGateCell{0, 0};
    detail::launch_spin_gate(static_cast<detail::SpinGateCell*>(memory_.device_pointer()),
                             static_cast<unsigned long long>(timeout.count()) * 1'000'000ull, stream);
  }
  ~SpinKernelGate() override {
    open(GateOpener::Host);
    // The kernel may still be reading the cell: let it leave before the memory goes.
    HL_CUDA_WARN(cudaStreamSynchronize(stream_));
  }

  void open(GateOpener who) override {
    if (!opener_.claim(who)) return;
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the damage is visible before the flag
    std::atomic_ref<unsigned>(cell_->open).store(1, std::memory_order_release);
  }
  GateOpener opened_by() const override { return timed_out() ? GateOpener::Timeout : opener_.get(); }
  bool timed_out() const override {
    const bool gave_up =
        std::atomic_ref<unsigned>(cell_->status).load(std::memory_order_acquire) == detail::kSpinGateTimedOut;
    if (gave_up && !announced_.exchange(true)) announce_timeout(GateKind::SpinKernel, timeout_);
    return gave_up;
  }
  GateKind kind() const noexcept override { return GateKind::SpinKernel; }

 private:
  cudaStream_t stream_;
  std::chrono::milliseconds timeout_;
  HostBuffer memory_;  // mapped page-locked memory that both the host and the kernel address
  detail::SpinGateCell* cell_ = nullptr;
  OpenerRecord opener_;
  mutable std::atomic<bool> announced_{false};
};

// A thread that waits for `delay` unless cancelled, then runs `action`.
struct TimedAction {
  std::mutex mutex;
  std::condition_variable cv;
  bool cancelled = false;
  bool fired = false;
  std::thread thread;

  template <typename Action>
  void start(std::chrono::microseconds delay, Action action) {
    thread = std::thread([this, delay, action] {
      std::unique_lock lock(mutex);
      if (cv.wait_for(lock, delay, [&] { return cancelled; })) return;
      fired = true;
      lock.unlock();
      action();
    });
  }
  // Returns whether the action ran.
  bool stop() {
    {
      std::lock_guard lock(mutex);
      cancelled = true;
    }
    cv.notify_all();
    if (thread.joinable()) thread.join();
    return fired;
  }
};

}  // namespace

std::string_view to_string(GateKind kind) noexcept {
  switch (kind) {
    case GateKind::HostFunction:
      return "host-function";
    case GateKind::SpinKernel:
      return "spin-kernel";
  }
  return "?";
}

GateKind gate_kind_from_string(std::string_view name) {
  for (auto k : {GateKind::HostFunction, GateKind::SpinKernel}) {
    if (to_string(k) == name) return k;
  }
  throw std::invalid_argument("unknown gate kind '" + std::string(name) + "'");
}

std::string_view to_string(GateOpener opener) noexcept {
  switch (opener) {
    case GateOpener::NotYet:
      return "not yet";
    case GateOpener::Host:
      return "host";
    case GateOpener::Watchdog:
      return "watchdog";
    case GateOpener::Timer:
      return "timer";
    case GateOpener::Timeout:
      return "timeout";
  }
  return "?";
}

std::unique_ptr<Gate> close_gate(GateKind kind, cudaStream_t stream, std::chrono::milliseconds timeout) {
  if (kind == GateKind::SpinKernel) return std::make_unique<SpinKernelGate>(stream, timeout);
  return std::make_unique<HostFunctionGate>(stream, timeout);
}

struct Watchdog::State : TimedAction {};

Watchdog::Watchdog(Gate& gate, std::chrono::milliseconds limit) : state_(std::make_shared<State>()) {
  state_->start(limit, [&gate] { gate.open(GateOpener::Watchdog); });
}
Watchdog::~Watchdog() { state_->stop(); }
bool Watchdog::disarm() { return state_->stop(); }

struct GateTimer::State : TimedAction {};

GateTimer::GateTimer(Gate& gate, std::chrono::microseconds delay) : state_(std::make_shared<State>()) {
  state_->start(delay, [&gate] { gate.open(GateOpener::Timer); });
}
GateTimer::~GateTimer() {
  // Let the timer run its course: destruction must not open the gate early.
  if (state_->thread.joinable()) state_->thread.join();
}

}  // namespace hazardlab
