// What a model predicts for one run of a program with gates and drains: the values every read may
// observe, which stream work a drain finds finished and which still held, whether a call issued while a
// gate was closed waits, and what an event query answers. The runner observes the same things; check/
// compares them. Everything here is CPU-only and the same for the full model and for every mutant.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "conformance/model/observed_writes.hpp"
#include "conformance/model/program.hpp"
#include "conformance/model/rules.hpp"

namespace hazardlab::conformance {

// A value a buffer can hold: the write of command `k` (its own tag), or a buffer's initial contents.
using ValueId = std::size_t;
inline constexpr ValueId kInitialValueBase = 1'000'000;
inline ValueId initial_value(BufferId buffer) { return kInitialValueBase + buffer; }

enum class Wait { CannotWait, MayWait, Waits };
enum class QueryAnswer { Either, Complete, NotReady };

struct ReadPrediction {
  CommandIndex command;
  BufferId buffer;
  std::string reader;
  std::set<WriteId> writes;         // schedule-aware: the writes it may observe
  std::set<ValueId> values;         // the values those writes may have stored (a copy stores what it read)
  std::set<ValueId> racy_values;    // without the schedule: more than one means the read races
  std::set<ValueId> latest_values;  // the values of the most recently issued of those writes
};

struct DrainPrediction {
  std::set<CommandIndex> done;  // stream work finished when the drain returns
  std::set<CommandIndex> held;  // stream work not started (behind a gate still closed)
};

struct Prediction {
  std::vector<ReadPrediction> reads;
  std::map<CommandIndex, DrainPrediction> drains;
  // At each GateOpen, the stream work still held behind a closed gate just before it opens.
  std::map<CommandIndex, std::set<CommandIndex>> held_at_gate_open;
  std::map<CommandIndex, Wait> waits;  // every CUDA call issued while a gate was closed
  std::map<CommandIndex, QueryAnswer> queries;

  [[nodiscard]] const ReadPrediction* find(CommandIndex command, BufferId buffer) const;
};

Prediction predict(const Program& program, const RuleSet& rules = RuleSet::all());

// Whether the runner observes when a command's stream work finished: it records an event after it. Not
// for a cudaEventRecord or cudaStreamWaitEvent: an event recorded after one on a blocking stream waits for
// the legacy stream's work, which the marker itself may skip (deviation 2), so it would tell about the
// event, not the marker. Drains and gate openings say nothing about markers.
bool completion_is_observed(CommandKind kind);

// The stream work the runner's drain waits for (the printer's too): what the documented model orders
// before the drain and does not hold behind a gate still closed. A GPU may take a deviation that makes
// an earlier call return without waiting for held work, which the documented model then takes as done;
// waiting for it would wait for a closed gate (found on an H100, seed 2188058342). Held work never
// finishes early on a GPU that keeps the documented rules or does less, so this never waits for a gate.
std::set<CommandIndex> drain_waits_for(const Program& program_up_to_drain);

// Propagates values through copies: a copy stores what its read of the source observed.
void propagate_values(const Program& program, std::vector<ReadPrediction>& reads);

}  // namespace hazardlab::conformance
