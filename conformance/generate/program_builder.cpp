#include "conformance/generate/program_builder.hpp"

#include <algorithm>

#include "conformance/model/happens_before.hpp"

namespace hazardlab::conformance::detail {

void ProgramBuilder::issue(Command c, bool probe) {
  if (!closed.empty() && c.kind != CommandKind::HostWrite && c.kind != CommandKind::GateOpen) {
    Program trial = p;
    const CommandIndex k = trial.append(c);
    const HappensBefore hb(trial, RuleSet::all());
    bool waits = false;
    for (ActionId gate : hb.commands()[k].closed_gates)
      for (ActionId a : {hb.commands()[k].call, hb.commands()[k].ret})
        waits = waits || (a != kNoAction && hb.ordered(gate, a));
    if (waits && !probe) open_all();
    if (waits && probe) {
      c.watchdog_opened = true;
      closed.clear();
    }
  }
  p.append(std::move(c));
}

bool ProgramBuilder::close_gate(StreamId stream, bool host_function) {
  if (closed.size() >= 2) return false;
  // One host thread runs every host function: a host-function gate would also hold back host functions
  // of other streams, which the rules do not order. So it only appears where there are none, once.
  host_function = host_function && !has_host_func && !host_function_gate_used;
  host_function_gate_used = host_function_gate_used || host_function;
  closed.push_back(p.gate_close(stream, host_function ? GateStyle::HostFunction : GateStyle::SpinKernel));
  return true;
}

void ProgramBuilder::interpret(const RawCommand& r) {
  if (r.kind >= kFirstMotif) return motif(static_cast<Motif>(r.kind - kFirstMotif), r);
  const int kind =
      r.kind < kCommandKinds ? r.kind : (r.kind == kExtraDrain ? int(CommandKind::Drain) : int(CommandKind::GateClose));
  const StreamId stream = pick(streams, r.b);
  const EventId event = r.a % p.event_count();
  Command c = make(static_cast<CommandKind>(kind), stream);
  switch (c.kind) {
    case CommandKind::HostWrite:
      c.writes = {pick(host, r.a)};
      break;
    case CommandKind::HostRead:
      c.reads = {pick(host, r.a)};
      break;
    case CommandKind::MemcpyAsync:
    case CommandKind::Memcpy: {
      const BufferId src = pick(all, r.a);
      std::vector<BufferId> dsts;
      for (BufferId b : all)
        if (b != src && !(is_host_buffer(p.buffer_kind(b)) && is_host_buffer(p.buffer_kind(src)))) dsts.push_back(b);
      c.reads = {src};
      c.writes = {pick(dsts, r.c)};
      if (c.kind == CommandKind::Memcpy) c.stream = kLegacyStream;
      break;
    }
    case CommandKind::MemsetAsync:
      c.writes = {pick(settable, r.a)};
      break;
    case CommandKind::Kernel:
    case CommandKind::HostFunc: {
      const auto& pool = c.kind == CommandKind::Kernel ? device : host;
      const BufferId read = pick(pool, r.a);
      const BufferId write = pick(pool, r.a + 1 + r.c % static_cast<unsigned>(pool.size() - 1));
      if (r.c % 3 != 1) c.reads = {read};
      if (r.c % 3 != 0) c.writes = {write};
      break;
    }
    case CommandKind::EventRecord:
    case CommandKind::StreamWaitEvent:
    case CommandKind::EventSynchronize:
    case CommandKind::EventQuery:
      c.event = event;
      break;
    case CommandKind::StreamSynchronize:
    case CommandKind::StreamQuery:
    case CommandKind::DeviceSynchronize:
    case CommandKind::Drain:
      break;
    case CommandKind::GateClose:
      close_gate(stream, r.c % 2 == 1);
      return;
    case CommandKind::GateOpen:
      if (closed.empty()) return;
      c.gate = pick(closed, r.a);
      std::erase(closed, c.gate);
      break;
  }
  issue(std::move(c), r.probe);
}

}  // namespace hazardlab::conformance::detail
