#include "conformance/generate/generate.hpp"

#include <map>

#include "conformance/model/happens_before.hpp"

namespace hazardlab::conformance {
namespace {

constexpr int kCommandKinds = static_cast<int>(CommandKind::Drain) + 1;

rc::Gen<RawCommand> gen_raw_command() {
  return rc::gen::apply(
      [](int kind, unsigned a, unsigned b, unsigned c, int probe) {
        return RawCommand{kind, a, b, c, probe == 0};
      },
      rc::gen::inRange(0, kCommandKinds + 3), rc::gen::inRange(0U, 8U), rc::gen::inRange(0U, 8U),
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
};

void Builder::interpret(const RawCommand& r) {
  const int kind = r.kind < kCommandKinds
                       ? r.kind
                       : (r.kind == kCommandKinds + 2 ? int(CommandKind::Drain) : int(CommandKind::GateClose));
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
    case CommandKind::GateClose: {
      if (closed.size() >= 2) return;
      // One host thread runs every host function: a host-function gate would also hold back host functions
      // of other streams, which the rules do not order. So it only appears where there are none, once.
      const bool host_function = r.c % 2 == 1 && !has_host_func && !host_function_gate_used;
      host_function_gate_used = host_function_gate_used || host_function;
      closed.push_back(p.gate_close(stream, host_function ? GateStyle::HostFunction : GateStyle::SpinKernel));
      return;
    }
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
  for (const RawCommand& r : spec.commands) b.has_host_func = b.has_host_func || r.kind == int(CommandKind::HostFunc);
  for (const RawCommand& r : spec.commands) b.interpret(r);
  b.open_all();
  b.p.device_synchronize();
  for (BufferId id : b.all) b.p.host_read(id);
  return b.p;
}

}  // namespace hazardlab::conformance
