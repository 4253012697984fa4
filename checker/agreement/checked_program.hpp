// Programs from the conformance generator as a checked program runs them, and what the happens-before
// model says the checker must report for them: one prediction for the replay on the CPU
// (checker/tests/test_model_agreement.cpp) and for the same programs executed under `hazardlab check` on a
// GPU (checker/programs/check_agreement.cu).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "conformance/model/program.hpp"
#include "conformance/model/rules.hpp"

namespace hazardlab::check::agreement {

namespace cf = conformance;

// The generator's programs carry a schedule (gates, drains) for the conformance runner. A checked program
// has none: a gate becomes the stream work it is (a kernel or a host function), openings and drains go.
// Queries answer in turn (complete, not complete), as the CPU replay takes them; the GPU runner sets each
// answer to what the GPU said.
cf::Program without_schedule(const cf::Program& p);

// Generated programs seldom rely on a deviation, and seldom race a host function with a copy. Each motif
// (1 to 4; 0 is none) does one of those, spliced in at command `at` with streams and buffers of its own.
inline constexpr int kDeviationMotifs = 5;
cf::Program with_deviation_motif(const cf::Program& p, int motif, std::size_t at);

// A copy (or memset) whose pinned host end the model says the checker holds.
struct HeldEnd {
  cf::CommandIndex command;
  cf::BufferId buffer;
  bool reads_allowed;  // an upload's source: the host may read it meanwhile
};
std::vector<HeldEnd> held_ends(const cf::Program& p, cf::CommandIndex i);

// A host access to pinned memory: a HostRead/HostWrite (its call) or a host function's (its stream work).
struct Access {
  cf::CommandIndex command;
  cf::BufferId buffer;
  bool write;
};
std::vector<Access> accesses(const cf::Program& p, cf::CommandIndex i);

// (access, copy) -> the deviations a finding names (empty: the documented rules leave it racing).
using Pair = std::pair<cf::CommandIndex, cf::CommandIndex>;
using Expected = std::map<Pair, std::vector<cf::Deviation>>;

// Each held end's first racing access, plain where the documented rules leave it racing, else naming the
// deviations that do.
Expected predicted(const cf::Program& p);

// The checker takes the start of a host function as a synchronization of the host with the work before it
// on its stream (a program may wait for a flag the host function sets, which no CUDA call shows). So a
// finding the model predicts may be gone when such a host function started before the access, and an
// access inside a host function is judged with what the host knew when it ran: these depend on timing.
bool a_started_host_function_may_order(const cf::Program& p, const Pair& finding);

// The other accesses that race with the copy end of `finding`, after it: when the predicted first access is
// inside a host function, which runs when its stream reaches it, one of these may come first in time.
std::vector<cf::CommandIndex> later_racing_accesses(const cf::Program& p, const Pair& finding);

// A host function runs after calls made after it: a copy queued later and ordered neither before nor after
// the function races with its access, which the replay in program order cannot show. (access, copy) pairs.
std::vector<Pair> host_function_races_with_later_copies(const cf::Program& p);

// The copy ends the checker numbers (CopyFacts::id), in the order it numbers them: each pinned end of an
// asynchronous copy or memset, source before destination.
std::vector<HeldEnd> numbered_copy_ends(const cf::Program& p);

std::string describe(const Expected& e);

}  // namespace hazardlab::check::agreement
