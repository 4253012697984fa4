// Which writes each read may observe: for every read action, the writes to its buffer that are not
// ordered after it, less those a write ordered between them and the read overwrites (the "last writer"
// set under a partial order). More than one allowed write is a race.
#pragma once

#include <limits>
#include <set>
#include <string>
#include <vector>

#include "conformance/model/program.hpp"
#include "conformance/model/rules.hpp"

namespace hazardlab::conformance {

// A write is named by the index of the command that made it (a command writes a buffer at most once).
using WriteId = CommandIndex;
// The buffer's contents before the program: a pseudo-write that happens-before everything.
inline constexpr WriteId kInitialValue = std::numeric_limits<WriteId>::max();

struct ReadResult {
  CommandIndex command;  // the command whose action reads
  BufferId buffer;
  std::string reader;                // for reports, e.g. "#2 MemcpyAsync (on stream 1) reads h"
  std::set<WriteId> allowed_writes;  // the writes the read may observe
  bool racy;                         // more than one allowed write
};

// One result per read action, in action order (issue order of the commands).
std::vector<ReadResult> analyze(const Program& program, const RuleSet& rules = RuleSet::all());

// The result for the read of `buffer` by `command`; throws std::out_of_range if there is none.
const ReadResult& find_read(const std::vector<ReadResult>& results, CommandIndex command, BufferId buffer);

}  // namespace hazardlab::conformance
