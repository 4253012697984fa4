#pragma once
// A gate holds a stream closed: everything queued behind it waits until the host opens it.
// This makes races deterministic: the host does its damage while the gate is shut, then
// opens it. Every gate opens by itself after its timeout, with a loud diagnosis, so a
// forgotten or stuck gate ends a trial instead of hanging the suite.
#include <cuda_runtime_api.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace hazardlab {

enum class GateKind {
  HostFunction,  // cudaLaunchHostFunc whose function waits on a latch: needs no SM
  SpinKernel,    // a one-thread kernel spinning on a flag in mapped host memory: needs canMapHostMemory
};

std::string_view to_string(GateKind kind) noexcept;
GateKind gate_kind_from_string(std::string_view name);

enum class GateOpener { NotYet, Host, Watchdog, Timer, Timeout };
std::string_view to_string(GateOpener opener) noexcept;

class Gate {
 public:
  virtual ~Gate() = default;
  // Idempotent: the first opener is remembered.
  virtual void open(GateOpener who = GateOpener::Host) = 0;
  virtual GateOpener opened_by() const = 0;
  // Valid once the stream has passed the gate (after a synchronize).
  virtual bool timed_out() const = 0;
  virtual GateKind kind() const noexcept = 0;
};

// Enqueues a closed gate on `stream`. The gate opens itself after `timeout`.
std::unique_ptr<Gate> close_gate(GateKind kind, cudaStream_t stream, std::chrono::milliseconds timeout);

// Opens a gate if the host thread stays inside a call for longer than `limit`: a call that
// should have returned at once but waits for the stream would otherwise wait forever.
class Watchdog {
 public:
  Watchdog(Gate& gate, std::chrono::milliseconds limit);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  // Stops the watchdog; returns true if it had already opened the gate (the call blocked).
  bool disarm();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// Opens a gate from another thread after `delay`: the stream stays closed for a while, and a
// guard must wait it out.
class GateTimer {
 public:
  GateTimer(Gate& gate, std::chrono::microseconds delay);
  ~GateTimer();  // joins; the gate is open afterwards
  GateTimer(const GateTimer&) = delete;
  GateTimer& operator=(const GateTimer&) = delete;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace hazardlab
