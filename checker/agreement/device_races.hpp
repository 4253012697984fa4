// The device's half of a generated program, as the checker sees it and as the happens-before model orders it:
// which device buffers each command's device work touches, and which pairs of commands the documented rules
// leave racing. checker/programs/check_agreement.cpp writes these beside the host's half, and the agreement
// test sets them beside what `hazardlab check` reported.
#pragma once

#include <vector>

#include "conformance/model/program.hpp"

namespace hazardlab::check::agreement {

namespace cf = conformance;

// A device buffer one command's device work touches: a copy's device ends, a memset's destination, a kernel's
// arguments. The runner's kernel reads its first argument through a `const` pointer and writes its second
// through a plain pointer, which the checker can only take as one it may write (device_conflicts.hpp). A
// synchronous copy is not device work the checker follows, and a host buffer is no device memory.
enum class Touch { Read, Write, MayWrite };
struct DeviceTouch {
  cf::BufferId buffer;
  Touch touch;
};
// The checker's rule: a write races with anything, a may-write with a read.
bool conflicting(Touch a, Touch b);
const char* to_string(Touch t);
std::vector<DeviceTouch> device_touches(const cf::Program& p, cf::CommandIndex i);

// Two commands whose device work touches one buffer, at least one writing, that the documented rules order
// neither way. `clearable`: a host function queued on the earlier's stream after it, and before the later was
// issued, may have started first; the checker takes such a start as the host knowing the earlier work, so the
// race may not be reported (never the other way round).
struct DeviceRacePair {
  cf::CommandIndex earlier, later;
  cf::BufferId buffer;
  Touch earlier_touch, later_touch;
  bool clearable;
};
std::vector<DeviceRacePair> device_races(const cf::Program& p);

}  // namespace hazardlab::check::agreement
