#pragma once
// What the host lock protects, measured (tools/host_interference.cpp): each GPU's pinned copies timed alone and
// beside other GPUs' copies, many rounds each. Two GPUs' timed parts must take turns only where timing them at
// once moves a GPU's figure beyond its own spread: its median at once lies outside every figure it gave alone.
// From that, the least serialization the measurement supports (HAZARDLAB_TIMED_TURNS, host_lock.hpp). Plain
// arithmetic on made-up or measured samples: no CUDA.
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "hazardlab/measurements.hpp"
#include "perf/host_lock.hpp"

namespace hazardlab::perf {

struct PlacedGpu {
  int index = -1;
  int numa_node = -1;  // -1: none or unknown
};

// GPUs whose loops were released together; one GPU: its figures alone.
struct Together {
  std::vector<int> gpus;
};

struct InterferenceInput {
  std::vector<PlacedGpu> gpus;
  std::vector<Together> configurations;  // each GPU alone among them
  // GB/s of every loop: (configuration, GPU, direction) -> one figure per round.
  std::map<std::tuple<std::size_t, int, Direction>, std::vector<double>> gbps;
};

// One GPU's figure in one configuration of several, beside its figures alone.
struct Disagreement {
  std::size_t configuration = 0;
  int gpu = -1;
  Direction direction = Direction::HostToDevice;
  Spread alone;         // its figures alone
  Spread together;      // its figures in the configuration
  double change = 0;    // (together median - alone median) / alone median
  bool beyond = false;  // the together median lies outside [alone min, alone max]
};

struct InterferenceDecision {
  std::vector<Disagreement> rows;        // every GPU of every configuration of several, in both directions
  std::vector<std::vector<int>> groups;  // GPUs joined by a pair of them that disagreed (connected), each sorted
  TimedTurns turns = TimedTurns::Host;   // the least serialization the measurement supports
  std::string why;
};

// Throws std::invalid_argument when a GPU has no figures alone in a direction it was measured together in.
InterferenceDecision decide_timed_turns(const InterferenceInput& input);

// "gpu0+gpu1", "gpu2 alone".
std::string configuration_name(const Together& t);

}  // namespace hazardlab::perf
