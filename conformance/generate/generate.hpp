// Random but valid programs for the conformance tester. rapidcheck generates a ProgramSpec (plain numbers,
// so it shrinks for free: fewer commands, smaller choices); build_program interprets it against what
// exists so that every spec, shrunk or not, is a program a GPU can run without deadlock.
#pragma once

#include <rapidcheck.h>

#include <vector>

#include "conformance/model/program.hpp"

namespace hazardlab::conformance {

// Patterns the generator also emits whole (generate.cpp says why), each a raw kind past the commands.
enum class Motif {
  EventWaitAcrossStreams,
  LegacyAndBlockingStream,
  PageableUploadThenRewrite,
  HostFunctionBehindGate,
  PinnedUploadThenRewrite,
};
inline constexpr int kMotifCount = 5;

struct RawCommand {
  int kind = 0;  // a CommandKind; past the last, another chance at closing a gate or draining, or a Motif
  unsigned a = 0, b = 0, c = 0;  // choices among what exists (a buffer, a stream, an event, a gate)
  bool probe = false;            // a call that waits for a closed gate is left to the watchdog, not opened first
};

struct ProgramSpec {
  std::vector<int> streams;        // created streams besides the legacy one: 0 blocking, 1 non-blocking
  int events = 1;                  // 1-3
  std::vector<int> extra_buffers;  // besides one of each kind: 0 pinned, 1 pageable, 2 device
  std::vector<RawCommand> commands;
};

rc::Gen<ProgramSpec> gen_program_spec();

// Streams, events, buffers, then the commands; a call the full model says waits for a closed gate gets
// that gate opened first, unless it probes; at the end every gate opens, the device synchronizes and
// every buffer is read back.
Program build_program(const ProgramSpec& spec);

}  // namespace hazardlab::conformance
