// Compares what the GPU did with what a model predicted. For the full model a disagreement is a
// violation of CUDA's documented rules (or of the model); for a mutant it refutes the mutant.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "conformance/schedule/predict.hpp"

namespace hazardlab::conformance {

// A tag that decodes to no value of this run of the program (stale, torn or foreign data).
inline constexpr ValueId kUnknownValue = static_cast<ValueId>(-1);

// What one run of a program showed. EventQuery answers are in the executed program (observed_complete).
struct Observation {
  std::map<std::pair<CommandIndex, BufferId>, std::set<ValueId>> reads;  // the values each observed read held
  std::map<CommandIndex, std::set<CommandIndex>> finished_at_drain;      // stream work found finished
  // Stream work found finished just before a GateOpen opened its gate (nothing waited for it).
  std::map<CommandIndex, std::set<CommandIndex>> finished_at_gate_open;
  // The distinct raw 32-bit words each read held (the first few), to tell what a wrong value was.
  std::map<std::pair<CommandIndex, BufferId>, std::set<std::uint32_t>> raw_words;
  std::map<CommandIndex, bool> blocked;  // calls issued while a gate was closed: did the watchdog open it
};

// Every disagreement, in words; empty when the run is what the model predicts.
std::vector<std::string> disagreements(const Program& executed, const Prediction& prediction,
                                       const Observation& observation);

// The disagreements with both models: what neither allows, item by item (a read's value, a command at a
// drain or a gate, a call, a query), in the first model's words. With the documented model and the one
// weakened by the deviations seen on GPUs, an item only the second allows is that deviation taken.
std::vector<std::string> disagreements(const Program& executed, const Prediction& prediction,
                                       const Prediction& alternative, const Observation& observation);

// How often the runs pushed a racy read to a value that is not the most recently issued one.
struct Coverage {
  long reads_checked = 0;
  long racy_reads = 0;
  long racy_reads_non_latest = 0;
  void add(const Prediction& full, const Observation& observation);
};

}  // namespace hazardlab::conformance
