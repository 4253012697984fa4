// The generator's interpreter (generate.cpp builds a program with it; motifs.cpp adds the motifs): what
// it needs to know about the program so far, and how it appends a command without leaving a call to wait
// for a gate that no one will open.
#pragma once

#include <vector>

#include "conformance/generate/generate.hpp"
#include "conformance/model/program.hpp"

namespace hazardlab::conformance::detail {

inline constexpr int kCommandKinds = static_cast<int>(CommandKind::Drain) + 1;
// Raw kinds past the commands: two more chances at closing a gate, one at draining, then the motifs.
inline constexpr int kExtraDrain = kCommandKinds + 2;
inline constexpr int kFirstMotif = kCommandKinds + 3;

template <typename T>
T pick(const std::vector<T>& options, unsigned choice) {
  return options[choice % options.size()];
}

struct ProgramBuilder {
  Program p;
  std::vector<BufferId> host, device, settable, all;
  std::vector<StreamId> streams;
  std::vector<GateId> closed;
  bool host_function_gate_used = false;
  bool has_host_func = false;

  // Appends `c`; first opens the gates it would wait for, or lets the watchdog open them (a probe).
  void issue(Command c, bool probe);
  void open_all() {
    for (GateId g : closed) p.gate_open(g);
    closed.clear();
  }
  Command make(CommandKind kind, StreamId stream = kLegacyStream) {
    Command c{.kind = kind, .thread = 0, .stream = stream, .event = 0, .reads = {}, .writes = {}};
    return c;
  }
  void interpret(const RawCommand& raw);
  void motif(Motif m, const RawCommand& raw);
  bool close_gate(StreamId stream, bool host_function);
};

}  // namespace hazardlab::conformance::detail
