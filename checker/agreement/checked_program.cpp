#include "checker/agreement/checked_program.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

#include "conformance/model/happens_before.hpp"

namespace hazardlab::check::agreement {

using cf::CommandKind;

namespace {

void copy_entities(const cf::Program& from, cf::Program& to) {
  for (cf::StreamId s = 1; s < from.stream_count(); ++s) to.add_stream(from.stream_kind(s));
  for (cf::EventId e = 0; e < from.event_count(); ++e) to.add_event();
  for (cf::BufferId b = 0; b < from.buffer_count(); ++b) to.add_buffer(from.buffer_kind(b), from.buffer_name(b));
}

bool pinned(const cf::Program& p, cf::BufferId b) { return p.buffer_kind(b) == cf::BufferKind::HostPinned; }

}  // namespace

cf::Program without_schedule(const cf::Program& p) {
  cf::Program out;
  copy_entities(p, out);
  std::size_t queries = 0;
  for (cf::Command c : p.commands()) {
    c.watchdog_opened = false;
    if (c.kind == CommandKind::GateOpen || c.kind == CommandKind::Drain) continue;
    if (c.kind == CommandKind::GateClose) {
      c.kind = c.gate_style == cf::GateStyle::HostFunction ? CommandKind::HostFunc : CommandKind::Kernel;
      c.reads.clear();
      c.writes.clear();
    }
    if (c.kind == CommandKind::EventQuery || c.kind == CommandKind::StreamQuery)
      c.observed_complete = queries++ % 2 == 0;  // both answers, in turn
    out.append(c);
  }
  return out;
}

cf::Program with_deviation_motif(const cf::Program& p, int motif, std::size_t at) {
  if (motif == 0) return p;
  cf::Program out;
  copy_entities(p, out);
  const cf::StreamId b1 = out.add_stream(cf::StreamKind::Blocking), b2 = out.add_stream(cf::StreamKind::Blocking);
  const cf::EventId unrecorded = out.add_event(), marker = out.add_event();
  const cf::BufferId landing = out.add_buffer(cf::BufferKind::HostPinned, "landing");
  const cf::BufferId small = out.add_buffer(cf::BufferKind::HostPinned, "small");
  const cf::BufferId device = out.add_buffer(cf::BufferKind::Device, "motif-device");
  at = std::min(at, p.commands().size());
  for (std::size_t i = 0; i < at; ++i) out.append(p.commands()[i]);
  switch (motif) {
    case 1:  // small-pinned-upload-skips-implicit-sync
      out.memcpy_async(landing, device, b1);
      out.memcpy_async(device, small, cf::kLegacyStream);
      out.kernel({}, {}, b2);
      out.stream_synchronize(b2);
      break;
    case 2:  // stream-sync-skips-what-its-markers-wait-for
      out.memcpy_async(landing, device, cf::kLegacyStream);
      out.event_record(marker, b1);
      out.stream_synchronize(b1);
      break;
    case 4:  // host functions: one behind the copy on its stream (ordered), one on another stream (racing)
      out.memcpy_async(landing, device, b1);
      out.host_func({landing}, {}, b1);
      out.host_func({landing}, {}, b2);
      break;
    default:  // unrecorded-event-wait-on-legacy-is-no-work
      out.memcpy_async(landing, device, b1);
      out.stream_wait_event(cf::kLegacyStream, unrecorded);
      out.kernel({}, {}, b2);
      out.stream_synchronize(b2);
      break;
  }
  out.host_read(landing);
  for (std::size_t i = at; i < p.commands().size(); ++i) out.append(p.commands()[i]);
  return out;
}

std::vector<HeldEnd> held_ends(const cf::Program& p, cf::CommandIndex i) {
  const cf::Command& c = p.commands()[i];
  std::vector<HeldEnd> ends;
  if (c.kind == CommandKind::MemcpyAsync) {
    const cf::BufferId src = c.reads.at(0), dst = c.writes.at(0);
    const bool src_device = p.buffer_kind(src) == cf::BufferKind::Device;
    const bool dst_device = p.buffer_kind(dst) == cf::BufferKind::Device;
    if (pinned(p, src) && dst_device) ends.push_back({i, src, true});
    if (pinned(p, dst) && src_device) ends.push_back({i, dst, false});
  }
  if (c.kind == CommandKind::MemsetAsync && pinned(p, c.writes.at(0))) ends.push_back({i, c.writes.at(0), false});
  return ends;
}

std::vector<Access> accesses(const cf::Program& p, cf::CommandIndex i) {
  const cf::Command& c = p.commands()[i];
  std::vector<Access> out;
  if (c.kind != CommandKind::HostRead && c.kind != CommandKind::HostWrite && c.kind != CommandKind::HostFunc) return out;
  for (cf::BufferId b : c.reads)
    if (pinned(p, b)) out.push_back({i, b, false});
  for (cf::BufferId b : c.writes)
    if (pinned(p, b)) out.push_back({i, b, true});
  return out;
}

Expected predicted(const cf::Program& p) {
  std::vector<cf::HappensBefore> models;
  models.emplace_back(p, cf::RuleSet::all());
  for (std::size_t d = 0; d < cf::kDeviationCount; ++d) models.emplace_back(p, cf::RuleSet::all().with(cf::Deviation(d)));
  models.emplace_back(p, cf::RuleSet::all().with_seen_deviations());
  auto racing = [&](const cf::HappensBefore& m, const HeldEnd& end, const Access& a) {
    const auto& acts = m.commands();
    const cf::ActionId at = p.commands()[a.command].kind == CommandKind::HostFunc ? acts[a.command].work : acts[a.command].call;
    return !m.ordered(acts[end.command].work, at);
  };
  Expected out;
  std::set<std::pair<cf::CommandIndex, cf::BufferId>> reported;
  std::vector<HeldEnd> held;
  for (cf::CommandIndex i = 0; i < p.commands().size(); ++i) {
    for (const Access& a : accesses(p, i)) {
      for (const HeldEnd& end : held) {
        if (end.buffer != a.buffer || (end.reads_allowed && !a.write)) continue;
        if (reported.count({end.command, end.buffer}) || !racing(models.back(), end, a)) continue;
        reported.insert({end.command, end.buffer});
        std::vector<cf::Deviation> relies;
        if (!racing(models[0], end, a)) {
          for (std::size_t d = 0; d < cf::kDeviationCount; ++d)
            if (racing(models[1 + d], end, a)) relies.push_back(cf::Deviation(d));
          if (relies.empty())
            for (std::size_t d = 0; d < cf::kDeviationCount; ++d) relies.push_back(cf::Deviation(d));
        }
        out[{i, end.command}] = relies;
      }
    }
    for (const HeldEnd& end : held_ends(p, i)) held.push_back(end);
  }
  return out;
}

bool a_started_host_function_may_order(const cf::Program& p, const Pair& finding) {
  const auto [access, copy] = finding;
  if (p.commands()[access].kind == CommandKind::HostFunc) return true;
  // The documented rules order the most: a host function they do not put behind the copy clears nothing.
  const cf::HappensBefore documented(p, cf::RuleSet::all());
  const auto& acts = documented.commands();
  for (cf::CommandIndex h = copy + 1; h < access; ++h)
    if (p.commands()[h].kind == CommandKind::HostFunc && documented.ordered(acts[copy].work, acts[h].work)) return true;
  return false;
}

std::vector<cf::CommandIndex> later_racing_accesses(const cf::Program& p, const Pair& finding) {
  const auto [first, copy] = finding;
  const cf::HappensBefore weakest(p, cf::RuleSet::all().with_seen_deviations());
  const auto& acts = weakest.commands();
  std::vector<cf::BufferId> touched;
  for (const Access& a : accesses(p, first)) touched.push_back(a.buffer);
  std::vector<cf::CommandIndex> later;
  for (const HeldEnd& end : held_ends(p, copy)) {
    if (std::find(touched.begin(), touched.end(), end.buffer) == touched.end()) continue;
    for (cf::CommandIndex i = first + 1; i < p.commands().size(); ++i)
      for (const Access& a : accesses(p, i)) {
        if (a.buffer != end.buffer || (end.reads_allowed && !a.write)) continue;
        const cf::ActionId at = p.commands()[i].kind == CommandKind::HostFunc ? acts[i].work : acts[i].call;
        if (!weakest.ordered(acts[copy].work, at) && (later.empty() || later.back() != i)) later.push_back(i);
      }
  }
  return later;
}

std::vector<Pair> host_function_races_with_later_copies(const cf::Program& p) {
  const cf::HappensBefore weakest(p, cf::RuleSet::all().with_seen_deviations());
  const auto& acts = weakest.commands();
  std::vector<Pair> races;
  for (cf::CommandIndex h = 0; h < p.commands().size(); ++h) {
    if (p.commands()[h].kind != CommandKind::HostFunc) continue;
    for (const Access& a : accesses(p, h))
      for (cf::CommandIndex c = h + 1; c < p.commands().size(); ++c)
        for (const HeldEnd& end : held_ends(p, c)) {
          if (end.buffer != a.buffer || (end.reads_allowed && !a.write)) continue;
          if (weakest.ordered(acts[h].work, acts[c].work) || weakest.ordered(acts[c].work, acts[h].work)) continue;
          if (races.empty() || races.back() != Pair{h, c}) races.push_back({h, c});
        }
  }
  return races;
}

std::vector<HeldEnd> numbered_copy_ends(const cf::Program& p) {
  std::vector<HeldEnd> ends;
  for (cf::CommandIndex i = 0; i < p.commands().size(); ++i) {
    const cf::Command& c = p.commands()[i];
    if (c.kind == CommandKind::MemcpyAsync && pinned(p, c.reads.at(0))) ends.push_back({i, c.reads.at(0), true});
    if ((c.kind == CommandKind::MemcpyAsync || c.kind == CommandKind::MemsetAsync) && pinned(p, c.writes.at(0)))
      ends.push_back({i, c.writes.at(0), false});
  }
  return ends;
}

std::string describe(const Expected& e) {
  std::ostringstream out;
  for (const auto& [pair, relies] : e) {
    out << "(access #" << pair.first << ", copy #" << pair.second << ")";
    for (cf::Deviation d : relies) out << " relies on " << cf::deviation_info(d).name;
    out << "; ";
  }
  return out.str();
}

}  // namespace hazardlab::check::agreement
