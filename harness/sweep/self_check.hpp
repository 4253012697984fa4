#pragma once
// The race-window sweep checks its own instrument before its curves are believed. Timing decides how
// often an ungated race shows, so the curves are an observation; but the instrument that draws them can
// be verified, and a broken one would still draw curves:
//   - events that do not bracket the sleep read about 0 us whatever delay was asked for;
//   - a host buffer of another memory kind than the sweep claims never races the way the hazard does;
//   - a delay that does not hold the racing work back shows no race where the gated control shows one.
// Each check is a pure function over what the sweep measured, with its tolerance stated here, so that a
// broken instrument's data can be fed to it on any machine (harness/tests/test_sweep_checks.cpp).
#include <cuda_runtime_api.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/host_memory.hpp"
#include "hazardlab/race_window.hpp"

namespace hazardlab {

// The stated tolerances of the checks.
struct SweepTolerance {
  // Requested delays below this are not checked: the sleep kernel's launch and the event timer's
  // resolution (about half a microsecond) are of the same size.
  double min_checked_delay_us = 10;
  // A sleep spins until the GPU's nanosecond timer has advanced by the delay: it never ends early. The
  // median achieved delay must reach this fraction of the requested one...
  double min_achieved_fraction = 0.8;
  // ...and stay under factor x requested + slack (a launch, a busy GPU), far below a unit mistake (x1000).
  double max_achieved_factor = 3;
  double max_achieved_slack_us = 500;
  // At the largest delay the racing work waits long after the host has moved, as it does behind the gated
  // control's closed gate, which must reproduce in every trial: each curve must reproduce in at least
  // this fraction of its trials there.
  double min_rate_at_largest_delay = 0.5;
};

// What CUDA says about a host buffer: cudaPointerGetAttributes' type, and cudaHostGetFlags' flags (none
// when it refused the pointer: memory CUDA did not page-lock).
struct HostMemorySeen {
  cudaMemoryType type = cudaMemoryTypeUnregistered;
  std::optional<unsigned> host_flags;
};

// Reads HostMemorySeen for a pointer in the current context (needs a GPU); the error cudaHostGetFlags
// returns for memory it does not know is cleared, it is the answer.
HostMemorySeen observe_host_memory(const void* pointer);

// The problem, if any, with one host buffer the sweep claims is of kind `claimed` (`role` names it).
std::optional<std::string> memory_problem(std::string_view role, HostMemoryKind claimed, const HostMemorySeen& seen);

// The problem, if any, with the achieved delays of every point of every curve.
std::optional<std::string> delay_problem(const RaceWindow& window, const SweepTolerance& tolerance = {});

// The problem, if any, with the largest delay of each curve: it must reproduce as the gated control does.
std::optional<std::string> largest_delay_problem(const RaceWindow& window, const SweepTolerance& tolerance = {});

// Every check's problem, in order: memory first (named problems from the caller), then delays, then the
// largest delay when `timing_checks` (off under a sanitizer, whose slowed calls move every race).
std::vector<std::string> sweep_self_check(const RaceWindow& window, std::vector<std::string> memory_problems,
                                          bool timing_checks, const SweepTolerance& tolerance = {});

}  // namespace hazardlab
