// Runs a program on the current GPU and observes it: the tags every read held, which stream work each
// drain found finished, which calls issued while a gate was closed waited for it, and what each event
// query answered. It judges nothing; check/ compares the observation with the models.
#pragma once

#include <chrono>
#include <cstdint>

#include "conformance/check/compare.hpp"

namespace hazardlab::conformance {

struct RunLimits {
  std::chrono::milliseconds call_limit{10};      // a call not back by then waited for a closed gate
  std::chrono::milliseconds gate_timeout{2000};  // a gate nobody opens opens itself, and the run is inconclusive
};

struct Run {
  Program executed;  // the program with what happened: watchdog openings, query answers
  Observation observation;
  bool gate_timed_out = false;
};

// Throws CudaError on a failed call (a sticky one leaves the context unusable).
Run run_program(const Program& program, const RunLimits& limits, std::uint32_t nonce);

// Loads the runner's kernels: call once before the first program (a lazy load behind a gate deadlocks).
void prepare_runner();

}  // namespace hazardlab::conformance
