// One set of rules, two uses: programs from the conformance generator, replayed command by command into
// the checker, give exactly the findings the happens-before model predicts for them, deviations included.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <iostream>
#include <sstream>

#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>

#include "checker/core/checker.hpp"
#include "conformance/generate/generate.hpp"
#include "conformance/model/happens_before.hpp"

namespace hazardlab::check {
namespace {

namespace cf = conformance;
using cf::CommandKind;

struct NoProtection : PageProtector {
  void apply(const PageChange&) override {}
};

// The generator's programs carry a schedule (gates, drains) for the GPU runner. A checked program has none:
// a gate becomes the stream work it is (a kernel or a host function) and openings and drains go.
cf::Program without_schedule(const cf::Program& p) {
  cf::Program out;
  for (cf::StreamId s = 1; s < p.stream_count(); ++s) out.add_stream(p.stream_kind(s));
  for (cf::EventId e = 0; e < p.event_count(); ++e) out.add_event();
  for (cf::BufferId b = 0; b < p.buffer_count(); ++b) out.add_buffer(p.buffer_kind(b), p.buffer_name(b));
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

// Generated programs seldom rely on a deviation, and seldom race a host function with a copy. Each of these
// few commands does one of those; the property splices one into a generated program at a random point, with
// streams and buffers of its own.
cf::Program with_deviation_motif(const cf::Program& p, int motif, std::size_t at) {
  if (motif == 0) return p;
  cf::Program out;
  for (cf::StreamId s = 1; s < p.stream_count(); ++s) out.add_stream(p.stream_kind(s));
  for (cf::EventId e = 0; e < p.event_count(); ++e) out.add_event();
  for (cf::BufferId b = 0; b < p.buffer_count(); ++b) out.add_buffer(p.buffer_kind(b), p.buffer_name(b));
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

const std::uintptr_t kBase = 0x7f0000000000;
std::uintptr_t address_of(cf::BufferId b) { return kBase + b * 2 * cf::kBufferBytes; }

bool pinned(const cf::Program& p, cf::BufferId b) { return p.buffer_kind(b) == cf::BufferKind::HostPinned; }

// A copy (or memset) whose host end the checker holds: the command, the buffer, and whether the host may
// read it meanwhile (an upload's source).
struct HeldEnd {
  cf::CommandIndex command;
  cf::BufferId buffer;
  bool reads_allowed;
};

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

// A host access: a HostRead/HostWrite (its call), or a host function's access (its stream work).
struct Access {
  cf::CommandIndex command;
  cf::BufferId buffer;
  bool write;
};
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

using Pair = std::pair<cf::CommandIndex, cf::CommandIndex>;  // (access, copy)
using Expected = std::map<Pair, std::vector<cf::Deviation>>;

// What the model says the checker must report: each held end's first racing access (the checker reports a
// copy once and lets it go), plain where the documented rules leave it racing, else naming the deviations.
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

// The same program told to the checker as the injected library tells it a running one.
Expected checked(const cf::Program& p) {
  NoProtection none;
  Checker checker(none);
  for (cf::BufferId b = 0; b < p.buffer_count(); ++b)
    if (pinned(p, b)) checker.pinned_allocated(address_of(b), cf::kBufferBytes, PinnedKind::HostAlloc);
  auto key = [](cf::StreamId s) { return StreamKey{0, s}; };
  for (cf::StreamId s = 1; s < p.stream_count(); ++s) checker.stream_created(key(s), p.stream_kind(s));
  for (cf::EventId e = 0; e < p.event_count(); ++e) checker.event_created(1000 + e);
  auto end_of = [&](cf::BufferId b) {
    const cf::BufferKind k = p.buffer_kind(b);
    const MemoryKind kind = k == cf::BufferKind::HostPinned     ? MemoryKind::PinnedHost
                            : k == cf::BufferKind::HostPageable ? MemoryKind::PageableHost
                                                                : MemoryKind::Device;
    return CopyEnd{kind, HostFootprint::linear(address_of(b), cf::kBufferBytes)};
  };
  Expected out;
  auto touch = [&](cf::CommandIndex i, std::optional<WorkStamp> host_function) {
    for (const Access& a : accesses(p, i)) {
      for (const Finding& f : checker.host_access(address_of(a.buffer), a.write, host_function, i, 0).findings)
        out[{i, f.copy.site}] = f.relies_on;
    }
  };
  for (cf::CommandIndex i = 0; i < p.commands().size(); ++i) {
    const cf::Command& c = p.commands()[i];
    switch (c.kind) {
      case CommandKind::HostWrite:
      case CommandKind::HostRead: touch(i, std::nullopt); break;
      case CommandKind::MemcpyAsync:
        checker.copy_async(AsyncCopy{"cuMemcpyAsync", key(c.stream), end_of(c.reads.at(0)), end_of(c.writes.at(0)),
                                     cf::kBufferBytes, i, false});
        break;
      case CommandKind::MemsetAsync:
        checker.copy_async(AsyncCopy{"cuMemsetD8Async", key(c.stream), CopyEnd{}, end_of(c.writes.at(0)),
                                     cf::kBufferBytes, i, false});
        break;
      case CommandKind::Memcpy: checker.copy_sync(0, end_of(c.reads.at(0)).kind, end_of(c.writes.at(0)).kind); break;
      case CommandKind::Kernel: checker.work_enqueued(key(c.stream)); break;
      case CommandKind::HostFunc: touch(i, checker.host_function_enqueued(key(c.stream))); break;
      case CommandKind::EventRecord: checker.event_recorded(1000 + c.event, key(c.stream)); break;
      case CommandKind::StreamWaitEvent: checker.stream_waited_event(key(c.stream), 1000 + c.event); break;
      case CommandKind::EventSynchronize: checker.event_synchronized(1000 + c.event); break;
      case CommandKind::EventQuery:
        if (c.observed_complete) checker.event_synchronized(1000 + c.event);
        break;
      case CommandKind::StreamSynchronize: checker.stream_synchronized(key(c.stream)); break;
      case CommandKind::StreamQuery:
        if (c.observed_complete) checker.stream_synchronized(key(c.stream));
        break;
      case CommandKind::DeviceSynchronize: checker.context_synchronized(0); break;
      case CommandKind::GateClose:
      case CommandKind::GateOpen:
      case CommandKind::Drain: throw std::logic_error("schedule commands are removed first");
    }
  }
  return out;
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

// At least 1,000 programs a run, stated here rather than left to rapidcheck's default of 100.
TEST(ModelAgreement, TheCheckerFindsWhatTheModelPredicts) {
  std::size_t with_findings = 0, with_deviations = 0, with_host_functions = 0;
  // RC_PARAMS="seed=..." replays a run; the size is this test's own.
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = 1500;
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = "model agreement";
  const auto result = rc::detail::checkTestable(
      [&] {
        const cf::Program generated = without_schedule(cf::build_program(*cf::gen_program_spec()));
        const cf::Program program = with_deviation_motif(generated, *rc::gen::inRange(0, 5),
                                                         *rc::gen::inRange<std::size_t>(0, generated.commands().size() + 1));
        const Expected model = predicted(program);
        with_findings += !model.empty();
        for (const auto& [pair, relies] : model) {
          with_deviations += !relies.empty();
          with_host_functions += program.commands()[pair.first].kind == CommandKind::HostFunc;
        }
        RC_ASSERT(describe(checked(program)) == describe(model));
      },
      metadata, params);
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    std::ostringstream counterexample;
    for (const auto& [type, value] : failure.counterExample) counterexample << type << ": " << value << "\n";
    FAIL() << failure.description << "\n" << counterexample.str();
  }
  std::cout << "programs with findings " << with_findings << ", findings relying on a deviation " << with_deviations
            << ", found in host functions " << with_host_functions << "\n";
  // The programs must exercise what is compared: plain findings, deviations, host functions.
  EXPECT_GT(with_findings, 100u);
  EXPECT_GT(with_deviations, 0u);
  EXPECT_GT(with_host_functions, 0u);
}

}  // namespace
}  // namespace hazardlab::check
