#include "conformance/generate/generate.hpp"

#include <algorithm>
#include <map>

#include "conformance/model/happens_before.hpp"

namespace hazardlab::conformance {
namespace {

constexpr int kCommandKinds = static_cast<int>(CommandKind::Drain) + 1;
// Raw kinds past the commands: two more chances at closing a gate, one at draining, then the motifs.
constexpr int kExtraDrain = kCommandKinds + 2;
constexpr int kFirstMotif = kCommandKinds + 3;

rc::Gen<RawCommand> gen_raw_command() {
  return rc::gen::apply(
      [](int kind, unsigned a, unsigned b, unsigned c, int probe) {
        return RawCommand{kind, a, b, c, probe == 0};
      },
      rc::gen::inRange(0, kFirstMotif + kMotifCount), rc::gen::inRange(0U, 8U), rc::gen::inRange(0U, 8U),
      rc::gen::inRange(0U, 8U), rc::gen::inRange(0, 6));
}

template <typename T>
T pick(const std::vector<T>& options, unsigned choice) {
  return options[choice % options.size()];
}

// What the interpretation needs to know about the program so far.
struct Builder {
  Program p;
  std::vector<BufferId> host, device, settable, all;
  std::vector<StreamId> streams;
  std::vector<GateId> closed;
  bool host_function_gate_used = false;
  bool has_host_func = false;

  // Appends `c`; first opens the gates it would wait for, or lets the watchdog open them (a probe).
  void issue(Command c, bool probe) {
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

bool Builder::close_gate(StreamId stream, bool host_function) {
  if (closed.size() >= 2) return false;
  // One host thread runs every host function: a host-function gate would also hold back host functions
  // of other streams, which the rules do not order. So it only appears where there are none, once.
  host_function = host_function && !has_host_func && !host_function_gate_used;
  host_function_gate_used = host_function_gate_used || host_function;
  closed.push_back(p.gate_close(stream, host_function ? GateStyle::HostFunction : GateStyle::SpinKernel));
  return true;
}

// A motif is a short pattern whose answer depends on one rule, with its streams, event and buffers still
// chosen at random: uniform commands make such a pattern rare, and a mutant it would refute stood.
void Builder::motif(Motif m, const RawCommand& r) {
  const StreamId x = pick(streams, r.b);
  Command work = make(CommandKind::Kernel);
  work.reads = {pick(device, r.a)};
  work.writes = {pick(device, r.a + 1)};
  switch (m) {
    case Motif::EventWaitAcrossStreams: {
      // Rule 3: work behind an event recorded behind a closed gate waits for the gate.
      if (!close_gate(x, false)) return;
      const std::size_t at = static_cast<std::size_t>(std::find(streams.begin(), streams.end(), x) - streams.begin());
      const StreamId y = streams[(at + 1 + r.c) % streams.size()];
      Command record = make(CommandKind::EventRecord, x);
      record.event = r.a % p.event_count();
      Command wait = make(CommandKind::StreamWaitEvent, y);
      wait.event = record.event;
      work.stream = y;
      issue(std::move(record), false);
      issue(std::move(wait), false);
      issue(std::move(work), false);
      break;
    }
    case Motif::LegacyAndBlockingStream: {
      // Rule 2: the legacy stream and a blocking stream, one gated, the other given work.
      std::vector<StreamId> blocking;
      for (StreamId s : streams)
        if (p.stream_kind(s) == StreamKind::Blocking) blocking.push_back(s);
      const StreamId other = blocking.empty() ? x : pick(blocking, r.b);
      const bool legacy_gated = r.c % 2 == 0;
      if (!close_gate(legacy_gated ? kLegacyStream : other, false)) return;
      work.stream = legacy_gated ? other : kLegacyStream;
      issue(std::move(work), false);
      break;
    }
    case Motif::PageableUploadThenRewrite: {
      // Rule 6: a pageable upload held behind a gate, its source rewritten before the gate opens; then the
      // copy is waited for and its destination read at once, before a later command can overwrite it (the
      // readback at the end alone left the mutant standing through 300 programs in 1 of 10 H100 runs).
      std::vector<BufferId> pageable;
      for (BufferId b : host)
        if (p.buffer_kind(b) == BufferKind::HostPageable) pageable.push_back(b);
      if (!close_gate(x, false)) return;
      const GateId gate = closed.back();
      Command copy = make(CommandKind::MemcpyAsync, x);
      copy.reads = {pick(pageable, r.a)};
      copy.writes = {pick(device, r.c)};
      Command rewrite = make(CommandKind::HostWrite);
      rewrite.writes = copy.reads;
      Command open = make(CommandKind::GateOpen);
      open.gate = gate;
      Command read = make(CommandKind::HostRead);
      read.reads = copy.writes;
      issue(std::move(copy), false);
      issue(std::move(rewrite), false);
      if (std::find(closed.begin(), closed.end(), gate) != closed.end()) {
        std::erase(closed, gate);
        issue(std::move(open), false);
      }
      issue(make(CommandKind::StreamSynchronize, x), false);
      issue(std::move(read), false);
      return;
    }
    case Motif::HostFunctionBehindGate: {
      // Rule 9: a host function waits for the gated work ahead of it on its stream.
      if (!close_gate(x, false)) return;
      Command host_function = make(CommandKind::HostFunc, x);
      host_function.reads = {pick(host, r.a)};
      host_function.writes = {pick(host, r.a + 1)};
      issue(std::move(host_function), false);
      break;
    }
  }
  issue(make(CommandKind::Drain), false);
}

void Builder::interpret(const RawCommand& r) {
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

}  // namespace

rc::Gen<ProgramSpec> gen_program_spec() {
  return rc::gen::exec([] {
    ProgramSpec spec;
    spec.streams = *rc::gen::container<std::vector<int>>(*rc::gen::inRange(0, 3), rc::gen::inRange(0, 2));
    spec.events = *rc::gen::inRange(1, 4);
    spec.extra_buffers = *rc::gen::container<std::vector<int>>(*rc::gen::inRange(0, 2), rc::gen::inRange(0, 3));
    spec.commands = *rc::gen::container<std::vector<RawCommand>>(*rc::gen::inRange(4, 21), gen_raw_command());
    return spec;
  });
}

Program build_program(const ProgramSpec& spec) {
  Builder b;
  b.streams.push_back(kLegacyStream);
  for (int kind : spec.streams)
    b.streams.push_back(b.p.add_stream(kind == 0 ? StreamKind::Blocking : StreamKind::NonBlocking));
  for (int i = 0; i < std::max(1, spec.events); ++i) b.p.add_event();
  // Two of each kind, so that a copy, kernel or host function always has a second buffer to write.
  std::vector<int> kinds{0, 1, 2, 0, 1, 2};
  kinds.insert(kinds.end(), spec.extra_buffers.begin(), spec.extra_buffers.end());
  std::map<int, int> count;
  for (int k : kinds) {
    static const char* names[] = {"pinned", "pageable", "device"};
    const BufferKind kind = k == 0 ? BufferKind::HostPinned : k == 1 ? BufferKind::HostPageable : BufferKind::Device;
    const BufferId id = b.p.add_buffer(kind, names[k] + std::to_string(count[k]++));
    (kind == BufferKind::Device ? b.device : b.host).push_back(id);
    if (kind != BufferKind::HostPageable) b.settable.push_back(id);
    b.all.push_back(id);
  }
  for (const RawCommand& r : spec.commands)
    b.has_host_func = b.has_host_func || r.kind == int(CommandKind::HostFunc) ||
                      r.kind == kFirstMotif + int(Motif::HostFunctionBehindGate);
  for (const RawCommand& r : spec.commands) b.interpret(r);
  b.open_all();
  b.p.device_synchronize();
  for (BufferId id : b.all) b.p.host_read(id);
  return b.p;
}

}  // namespace hazardlab::conformance
