#include "conformance/schedule/predict.hpp"

#include "conformance/model/happens_before.hpp"
#include "conformance/schedule/schedule_order.hpp"

namespace hazardlab::conformance {
namespace {

bool is_copy(CommandKind kind) { return kind == CommandKind::MemcpyAsync || kind == CommandKind::Memcpy; }

bool is_cuda_call(const Program& program, const Command& c) {
  switch (c.kind) {
    case CommandKind::HostWrite:
    case CommandKind::GateOpen:
      return false;
    case CommandKind::HostRead:  // a device buffer is read back through the runner's own non-blocking stream
      return !is_host_buffer(program.buffer_kind(c.reads.at(0)));
    default:
      return true;
  }
}

// "might be synchronous with respect to host": a copy between the device and pageable memory.
bool documented_may_wait(const Program& program, const Command& c) {
  if (c.kind != CommandKind::MemcpyAsync) return false;
  return program.buffer_kind(c.reads.at(0)) == BufferKind::HostPageable ||
         program.buffer_kind(c.writes.at(0)) == BufferKind::HostPageable;
}

std::vector<ReadPrediction> reads_under(const Program& program, const HappensBefore& hb, const ScheduleOrder& order) {
  const auto& actions = hb.actions();
  std::vector<std::vector<ActionId>> writes_of(program.buffer_count());
  for (ActionId a = 0; a < actions.size(); ++a)
    for (BufferId b : actions[a].writes) writes_of[b].push_back(a);
  std::vector<ReadPrediction> reads;
  for (ActionId r = 0; r < actions.size(); ++r) {
    for (BufferId b : actions[r].reads) {
      const CommandIndex k = actions[r].command;
      ReadPrediction p{k,
                       b,
                       "#" + std::to_string(k) + " " + std::string(to_string(program.commands()[k].kind)) + " reads " +
                           program.buffer_name(b),
                       {},
                       {},
                       {},
                       {}};
      bool some_write_before = false;
      for (ActionId w : writes_of[b]) {
        if (w == r || order.ordered(r, w)) continue;
        if (order.ordered(w, r)) some_write_before = true;
        bool overwritten = false;
        for (ActionId later : writes_of[b])
          overwritten = overwritten || (order.ordered(w, later) && order.ordered(later, r));
        if (!overwritten) p.writes.insert(actions[w].command);
      }
      if (!some_write_before) p.writes.insert(kInitialValue);
      reads.push_back(std::move(p));
    }
  }
  return reads;
}

// The stream work whose completion the runner observes (through an event recorded after it).
bool observed(const Program& program, const HappensBefore& hb, CommandIndex k) {
  return hb.commands()[k].work != kNoAction && completion_is_observed(program.commands()[k].kind);
}

std::set<CommandIndex> commands_of(const Program& program, const HappensBefore& hb, const ActionSet& set,
                                   CommandIndex before) {
  std::set<CommandIndex> out;
  for (CommandIndex k = 0; k < before; ++k)
    if (observed(program, hb, k) && set.contains(hb.commands()[k].work)) out.insert(k);
  return out;
}

// The stream work a drain's call waits for: what the model takes as finished when it returns.
std::set<CommandIndex> drain_waits_for_in(const Program& program, const HappensBefore& hb, CommandIndex drain) {
  std::set<CommandIndex> out;
  for (CommandIndex k = 0; k < drain; ++k)
    if (observed(program, hb, k) && hb.ordered(hb.commands()[k].work, hb.commands()[drain].call)) out.insert(k);
  return out;
}

}  // namespace

const ReadPrediction* Prediction::find(CommandIndex command, BufferId buffer) const {
  for (const ReadPrediction& r : reads)
    if (r.command == command && r.buffer == buffer) return &r;
  return nullptr;
}

void propagate_values(const Program& program, std::vector<ReadPrediction>& reads) {
  for (ReadPrediction& r : reads) r.values.clear();
  // A fixpoint: copies may feed each other, so the sets grow until nothing changes.
  for (bool grew = true; grew;) {
    grew = false;
    for (ReadPrediction& r : reads) {
      std::set<ValueId> values;
      for (WriteId w : r.writes) {
        if (w == kInitialValue) {
          values.insert(initial_value(r.buffer));
        } else if (is_copy(program.commands()[w].kind)) {
          for (const ReadPrediction& source : reads)
            if (source.command == w) values.insert(source.values.begin(), source.values.end());
        } else {
          values.insert(w);
        }
      }
      if (values.size() != r.values.size()) grew = true;
      r.values = std::move(values);
    }
  }
}

bool completion_is_observed(CommandKind kind) {
  return kind != CommandKind::EventRecord && kind != CommandKind::StreamWaitEvent;
}

std::set<CommandIndex> drain_waits_for(const Program& program_up_to_drain) {
  const HappensBefore hb(program_up_to_drain, RuleSet::all());
  const ScheduleOrder order(hb);
  const CommandIndex drain = program_up_to_drain.commands().size() - 1;
  std::set<CommandIndex> waits = drain_waits_for_in(program_up_to_drain, hb, drain);
  for (CommandIndex held : commands_of(program_up_to_drain, hb, order.held_at(drain), drain)) waits.erase(held);
  return waits;
}

Prediction predict(const Program& program, const RuleSet& rules) {
  const HappensBefore hb(program, rules);
  const ScheduleOrder order(hb);
  Prediction p;
  p.reads = reads_under(program, hb, order);
  propagate_values(program, p.reads);

  // Without the schedule: which reads race, and which value the most recently issued write stores.
  std::vector<ReadPrediction> plain;
  for (const ReadResult& r : analyze(program, rules))
    plain.push_back({r.command, r.buffer, "", r.allowed_writes, {}, {}, {}});
  propagate_values(program, plain);
  for (std::size_t i = 0; i < p.reads.size() && i < plain.size(); ++i) {
    p.reads[i].racy_values = plain[i].values;
    std::set<WriteId> writes = plain[i].writes;
    if (writes.size() > 1) writes.erase(kInitialValue);  // every write follows the initial contents
    const WriteId newest = *writes.rbegin();
    if (newest == kInitialValue) {
      p.reads[i].latest_values = {initial_value(plain[i].buffer)};
    } else if (!is_copy(program.commands()[newest].kind)) {
      p.reads[i].latest_values = {newest};
    } else {
      for (const ReadPrediction& source : plain)
        if (source.command == newest) p.reads[i].latest_values = source.values;
    }
  }

  for (CommandIndex k = 0; k < program.commands().size(); ++k) {
    const Command& c = program.commands()[k];
    const CommandActions& actions = hb.commands()[k];
    if (c.kind == CommandKind::Drain)
      p.drains[k] = {drain_waits_for_in(program, hb, k), commands_of(program, hb, order.held_at(k), k)};
    if (c.kind == CommandKind::GateOpen) p.held_at_gate_open[k] = commands_of(program, hb, order.held_at(k), k);
    if (!actions.closed_gates.empty() && is_cuda_call(program, c)) {
      bool waits = false;
      for (ActionId a : {actions.call, actions.ret})
        if (a != kNoAction) waits = waits || order.held_at(k).contains(a);
      p.waits[k] = waits ? Wait::Waits : documented_may_wait(program, c) ? Wait::MayWait : Wait::CannotWait;
    }
    if (c.kind == CommandKind::StreamQuery) {
      // Complete once the stream's work (and, on the legacy stream, the blocking streams' work rule 2 puts
      // ahead of it) is done; not ready while its own work is held; either answer while only what rule 2 adds
      // is held (the documents say "all operations in stream").
      bool all_done = true, own_held = false;
      for (CommandIndex j = 0; j < k; ++j) {
        const ActionId w = hb.commands()[j].work;
        if (w == kNoAction) continue;
        const StreamId on = program.commands()[j].stream;
        const bool own = on == c.stream;
        const bool implicit = c.stream == kLegacyStream && program.stream_kind(on) == StreamKind::Blocking;
        if (!own && !implicit) continue;
        if (!order.done_at(k).contains(w)) all_done = false;
        if (own && order.held_at(k).contains(w)) own_held = true;
      }
      p.queries[k] = own_held ? QueryAnswer::NotReady : all_done ? QueryAnswer::Complete : QueryAnswer::Either;
    }
    if (c.kind == CommandKind::EventQuery) {
      ActionId record = kNoAction;
      for (CommandIndex j = 0; j < k; ++j)
        if (program.commands()[j].kind == CommandKind::EventRecord && program.commands()[j].event == c.event)
          record = hb.commands()[j].event;
      p.queries[k] = record == kNoAction || order.done_at(k).contains(record) ? QueryAnswer::Complete
                     : order.held_at(k).contains(record)                      ? QueryAnswer::NotReady
                                                                              : QueryAnswer::Either;
    }
  }
  return p;
}

}  // namespace hazardlab::conformance
